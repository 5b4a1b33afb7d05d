// A firewall's command line read once for every judgement (call.ts, firewall/checks.ts).
import { describe, expect, it } from 'vitest';
import { argvOf as cli } from '../../../../test/support/argv-line.js';
import { detectorRules } from '../../../../test/support/detector-rules.js';
import { firewallCall } from './call.js';

const rules = detectorRules();
const NO_IO = { upstream: [] };

describe('firewallCall', () => {
  it("reads an iptables rule: its command and chain, target, source and port, other options' values skipped", () => {
    expect(
      firewallCall(cli('iptables -w 5 -I INPUT 1 -s 0.0.0.0/0 -p tcp --dport 6379 -j ACCEPT'), NO_IO)?.rule,
    ).toEqual({
      command: 'insert',
      chain: 'INPUT',
      target: 'ACCEPT',
      flush: false,
      source: '0.0.0.0/0',
      port: '6379',
      narrowed: false,
    });
    expect(firewallCall(cli('iptables -P FORWARD DROP'), NO_IO)?.rule).toMatchObject({
      command: 'policy',
      target: 'DROP',
    });
    expect(firewallCall(cli('iptables -t nat -F'), NO_IO)?.rule?.flush).toBe(true);
  });

  it('reads nft with the rules given on stdin, and ufw without its options', () => {
    expect(firewallCall(cli('nft -f -'), { upstream: [], stdinText: 'flush ruleset' })?.text).toContain(
      'flush ruleset',
    );
    expect(firewallCall(cli('ufw --force allow 22'), NO_IO)?.ops).toEqual(['allow', '22']);
  });
});

describe('a firewall command', () => {
  it.each([
    ['iptables -t nat -F', 'firewall-flush'],
    ['iptables -P INPUT ACCEPT', 'firewall-flush'],
    ['ip6tables -P INPUT DROP', 'firewall-flush'],
    ['iptables -A INPUT -j DROP', 'firewall-flush'],
    ['iptables -w 5 -A INPUT -p tcp --dport 22 -j ACCEPT', 'access-grant'],
    ['iptables -A INPUT -j ACCEPT', 'access-grant'],
    ["echo 'flush ruleset' | nft -f -", 'firewall-flush'],
    ['nft add rule inet filter input tcp dport 5432 accept', 'access-grant'],
    ['ufw disable', 'firewall-flush'],
    ['ufw --force deny 80', 'firewall-flush'],
    ['ufw allow 22', 'access-grant'],
    ['iptables -w -F', 'firewall-flush'],
    ['iptables --wait -P INPUT ACCEPT', 'firewall-flush'],
    ['iptables -w -A INPUT -p tcp --dport 22 -j ACCEPT', 'access-grant'],
    ['iptables -R INPUT 1 -j ACCEPT', 'access-grant'],
    ['iptables -A INPUT -p tcp -s 0/0 --dport ssh -j ACCEPT', 'access-grant'],
    ['nft add rule inet filter input tcp dport ssh accept', 'access-grant'],
    ['nft add rule inet filter input ip saddr 0.0.0.0/0 tcp dport 3306 accept', 'access-grant'],
    ['nft add rule inet filter input counter accept', 'access-grant'],
    ["nft add chain inet filter input '{ policy accept; }'", 'firewall-flush'],
    ['nft destroy table inet filter', 'firewall-flush'],
    ['ufw default allow incoming', 'firewall-flush'],
    ['ufw limit 22', 'access-grant'],
    ['ufw allow from any', 'access-grant'],
  ])('%s: %s', (command, rule) => {
    expect(rules(command)).toContain(rule);
  });

  it.each([
    'iptables -L -n',
    'iptables -A INPUT -s 10.0.0.0/8 -p tcp --dport 22 -j ACCEPT',
    'iptables -A INPUT -i lo -j ACCEPT',
    'iptables -A INPUT -m conntrack --ctstate ESTABLISHED -j ACCEPT',
    'iptables -A INPUT -p tcp --dport 443 -j ACCEPT',
    'nft list ruleset',
    'ufw allow 443',
    'ufw status verbose',
    'ufw --dry-run allow 22',
    'ufw default allow outgoing',
    'iptables -A INPUT -s 203.0.113.5 -j DROP',
    'nft add rule inet filter input ip saddr 203.0.113.5 drop',
    'nft add rule inet filter input ct state established,related accept',
    'ufw deny from 203.0.113.5',
  ])('%s stays ordinary', (command) => {
    expect(rules(command)).toEqual([]);
  });
});
