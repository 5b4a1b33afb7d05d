// How a firewall's command line reads (iptables and its variants, nft, ufw): for iptables the rule it changes (the
// command and its chain, target, source and port, options and their values read once), for nft its words and any
// rules given on stdin as one text, for ufw the words that are not options. The one reader for every judgement of a
// firewall (firewall/checks.ts lists them). Pure.
import { stdinText, type CheckContext, type Io } from '../../checks/types.js';
import { has, parseFlags, type Argv } from '../../engine/argv.js';
import { keyTable, names } from '../../engine/names.js';

/** iptables' options that take a value. */
const VALUED = names(`-t --table -A --append -I --insert -R --replace -D --delete -N --new-chain -P --policy -j --jump
  -g --goto -s --source --src -d --destination --dst -p --protocol -i --in-interface -o --out-interface -m --match
  --dport --destination-port --dports --sport --source-port --sports --state --ctstate --comment
  --to-destination --to-source --to-ports`);

/** The options that say what a rule command does, by the name the judgements use. */
const COMMANDS = keyTable({
  '-A --append': 'append',
  '-I --insert': 'insert',
  '-R --replace': 'replace',
  '-D --delete': 'delete',
  '-P --policy': 'policy',
});

export interface IptablesRule {
  /** append, insert, replace, delete or policy, and the chain it names. */
  command?: string;
  chain?: string;
  /** `-j TARGET`, or for `-P CHAIN TARGET` the policy. */
  target?: string;
  /** `-F`/`-X`: rules or chains flushed. */
  flush: boolean;
  source?: string;
  port?: string;
  /** Narrowed to loopback or to established connections. */
  narrowed: boolean;
}

export interface FirewallCall {
  /** iptables (and ip6tables, iptables-legacy, iptables-nft): the rule. */
  rule?: IptablesRule;
  /** nft: every word, and the rules given on stdin, as one text. */
  text: string;
  /** ufw: the words that are not options. */
  ops: string[];
}

function iptablesRule(cmd: Argv): IptablesRule {
  // `-w` waits for the lock, for as many seconds as a number after it says, if one does.
  const args = cmd.args.filter((a, i) => !(/^\d+$/.test(a.text) && /^(-w|--wait)$/.test(cmd.args[i - 1]?.text ?? '')));
  const f = parseFlags(args, VALUED);
  const value = (...opts: string[]): string | undefined =>
    opts.map((o) => f.values.get(o)).find((v) => v !== undefined);
  const given = [...f.values.keys()].find((o) => COMMANDS[o] !== undefined);
  const command = given === undefined ? undefined : COMMANDS[given];
  const target = command === 'policy' ? f.operands[0]?.text : value('-j', '--jump');
  const source = value('-s', '--source', '--src');
  const port = value('--dport', '--destination-port', '--dports');
  return {
    ...(command ? { command, chain: f.values.get(given!)! } : {}),
    ...(target ? { target } : {}),
    flush: has(f, 'FX', '--flush', '--delete-chain'),
    ...(source ? { source } : {}),
    ...(port ? { port } : {}),
    narrowed: cmd.args.some((a) => a.text === 'lo') || f.long.has('--state') || f.long.has('--ctstate'),
  };
}

const IPTABLES = new Set(names('iptables ip6tables iptables-legacy iptables-nft'));

/** Reads a firewall's command line; undefined for ufw's `--dry-run`, which changes nothing. */
export function firewallCall(cmd: Argv, io: Io): FirewallCall | undefined {
  const words = cmd.args.map((a) => a.text);
  if (cmd.name === 'ufw' && words.includes('--dry-run')) return undefined;
  return {
    ...(IPTABLES.has(cmd.name ?? '') ? { rule: iptablesRule(cmd) } : {}),
    text: cmd.name === 'nft' ? `${words.join(' ')}\n${stdinText(io) ?? ''}` : '',
    ops: words.filter((w) => !w.startsWith('-')),
  };
}

/** A judgement of one firewall command (what it opens, drops or switches off), kept with its threat class. */
export type FirewallCheck = (call: FirewallCall, cmd: Argv, io: Io, ctx: CheckContext) => void;
