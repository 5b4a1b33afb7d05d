// The host's network settings (src/detector/checks/host-network.ts): firewall openings of admin or database ports
// to any address, firewalls switched off, DNS servers changed; web ports and narrowed rules stay ordinary.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['iptables -I INPUT 1 -p tcp --dport 27017 -j ACCEPT', 'access-grant'],
  ['ip6tables -A INPUT -p tcp -m tcp --dport 22 -j ACCEPT', 'access-grant'],
  ['iptables -A INPUT -j ACCEPT', 'access-grant'],
  ['nft insert rule ip filter input tcp dport { 22, 3389 } accept', 'access-grant'],
  ['ufw allow 3306', 'access-grant'],
  ['ufw allow proto tcp from any to any port 6379', 'access-grant'],
  ['ufw allow OpenSSH', 'access-grant'],
  ['firewall-cmd --zone=public --add-port=5432/tcp', 'access-grant'],
  ['firewall-cmd --add-service=redis --permanent', 'access-grant'],
  ['pfctl -F all', 'firewall-flush'],
  ['socketfilterfw --setblockall off', 'firewall-flush'],
  ['networksetup -setdnsservers Ethernet 192.0.2.1 192.0.2.2', 'dns-change'],
  ['nmcli connection modify eth0 +ipv4.dns 192.0.2.9', 'dns-change'],
  ['nmcli con mod home ipv4.ignore-auto-dns yes', 'dns-change'],
  ['resolvectl dns wlan0 192.0.2.53', 'dns-change'],
  ['systemd-resolve --interface eth0 --set-dns 192.0.2.53', 'dns-change'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'ufw allow 80,443/tcp',
  'ufw allow from 10.8.0.0/16 to any port 5432',
  'ufw status verbose',
  'iptables -A INPUT -p tcp --dport 8443 -j ACCEPT',
  'iptables -A INPUT -s 192.168.0.0/16 -p tcp --dport 22 -j ACCEPT',
  'iptables -A OUTPUT -p tcp --dport 5432 -j ACCEPT',
  'iptables -I INPUT -i lo -j ACCEPT',
  'nft add rule inet filter input ip saddr 10.0.0.0/8 tcp dport 22 accept',
  'firewall-cmd --add-port=3000/tcp',
  'firewall-cmd --add-service=https',
  'pfctl -s rules',
  'networksetup -getdnsservers Wi-Fi',
  'networksetup -setdnsservers Wi-Fi Empty',
  'nmcli device show eth0',
  'resolvectl query example.org',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
