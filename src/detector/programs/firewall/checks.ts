// Every judgement of a firewall command (iptables and variants, nft, ufw) on one reading of it (call.ts); each lives
// with its threat class's checks. Start here when one is judged wrongly (`npm run detector:who -- 'ufw ...'`). Pure.
import { firewallOpens } from '../../checks/host-network.js';
import { firewallDrops } from '../../checks/network.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { firewallOff } from '../../checks/system.js';
import { firewallCall, type FirewallCheck } from './call.js';

/** What a firewall command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly FirewallCheck[] = [
  firewallOff, // rules flushed, chains deleted, a policy of ACCEPT, the firewall disabled (firewall-flush)
  firewallDrops, // traffic dropped, default-deny policies, rules deleted (firewall-flush)
  firewallOpens, // an admin port or every port opened to any address (access-grant)
];

const firewall = familyCheck(firewallCall, JUDGEMENTS);

judges(import.meta.url, { 'iptables ip6tables iptables-legacy iptables-nft nft ufw': firewall }, { claims: true });
