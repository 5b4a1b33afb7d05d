// The catalogue of findings: stable rule ids, their tier and a human description. Workflow-safe (pure data).

/** `hardline` is never run, whatever the mode; `dangerous` asks a person (or smart approval). */
export type Tier = 'hardline' | 'dangerous';

export interface Rule {
  id: string;
  tier: Tier;
  description: string;
  /**
   * The rule means "tether could not read what runs" (computed text, an unread script, downloaded, decoded or
   * carried code): the same words can run anything, so an approval covers that one call only, and command_allowlist
   * may not name the rule.
   */
  opaque?: true;
}

const list: Rule[] = [
  // Deletion
  { id: 'delete-root', tier: 'hardline', description: 'deletes the root file system' },
  { id: 'delete-system-dir', tier: 'hardline', description: 'deletes a system directory' },
  { id: 'delete-home', tier: 'hardline', description: 'deletes the home directory' },
  {
    id: 'recursive-delete',
    tier: 'dangerous',
    description: 'deletes recursively outside the project (or a target known only at run time)',
  },
  { id: 'delete-system-path', tier: 'dangerous', description: 'deletes a system or configuration file' },
  { id: 'find-delete', tier: 'dangerous', description: 'deletes what find matches outside the project' },
  { id: 'rsync-delete', tier: 'dangerous', description: 'rsync --delete removes files at the destination' },
  { id: 'shred', tier: 'dangerous', description: 'shred destroys file contents beyond recovery' },
  { id: 'interpreter-delete', tier: 'dangerous', description: 'an interpreter one-liner deletes files recursively' },
  // Disks
  { id: 'format-filesystem', tier: 'hardline', description: 'formats a file system or wipes its signatures' },
  { id: 'partition-disk', tier: 'hardline', description: 'changes a disk partition table' },
  { id: 'raw-disk-write', tier: 'hardline', description: 'writes raw data to a block device' },
  // Databases
  { id: 'sql-drop', tier: 'dangerous', description: 'SQL DROP removes a table, database or schema' },
  { id: 'sql-truncate', tier: 'dangerous', description: 'SQL TRUNCATE empties a table' },
  { id: 'sql-delete-all', tier: 'dangerous', description: 'SQL DELETE without WHERE removes every row' },
  { id: 'sql-update-all', tier: 'dangerous', description: 'SQL UPDATE without WHERE changes every row' },
  {
    id: 'data-lifecycle',
    tier: 'dangerous',
    description:
      'makes data expire or stop being kept: retention or time-to-live cut to almost nothing, a deleting lifecycle rule, persistence off, or an old snapshot restored over the current state',
  },
  { id: 'redis-flush', tier: 'dangerous', description: 'redis FLUSHALL/FLUSHDB deletes every key' },
  // System configuration
  {
    id: 'overwrite-system-config',
    tier: 'dangerous',
    description: 'overwrites system configuration, a shell start-up file or ~/.ssh',
  },
  // Services and the host
  { id: 'service-stop', tier: 'dangerous', description: 'stops, disables or masks a system service' },
  { id: 'shutdown', tier: 'hardline', description: 'shuts down, reboots or suspends the machine' },
  { id: 'network-down', tier: 'dangerous', description: 'takes a network interface, route or network manager down' },
  { id: 'firewall-flush', tier: 'dangerous', description: 'flushes or disables the firewall' },
  { id: 'crontab-remove', tier: 'dangerous', description: 'crontab -r deletes every cron job of the user' },
  {
    id: 'schedule-unchecked',
    tier: 'dangerous',
    opaque: true,
    description: 'schedules commands that cannot be checked (a crontab, at job or task from a file or computed text)',
  },
  // Remote code
  { id: 'remote-code-exec', tier: 'dangerous', opaque: true, description: 'runs code downloaded from the network' },
  {
    id: 'decoded-to-shell',
    tier: 'dangerous',
    opaque: true,
    description: 'runs decoded (hidden) data as a shell script',
  },
  { id: 'reverse-shell', tier: 'dangerous', description: 'opens a shell over the network (reverse shell)' },
  // Processes
  { id: 'fork-bomb', tier: 'hardline', description: 'a fork bomb exhausts the machine' },
  { id: 'kill-all', tier: 'hardline', description: 'kills every process (kill -1)' },
  {
    id: 'mass-kill',
    tier: 'dangerous',
    description: 'kills processes by name, user or a computed list (killall, pkill, kill $(pgrep ...))',
  },
  { id: 'kill-init', tier: 'dangerous', description: 'signals PID 1 (init or the container entry point)' },
  // Permissions
  { id: 'system-permissions', tier: 'dangerous', description: 'changes permissions or ownership of system paths' },
  // Identity and security posture
  {
    id: 'account-change',
    tier: 'dangerous',
    description: 'creates, changes or deletes users, groups, passwords or sudo rights',
  },
  {
    id: 'security-posture',
    tier: 'dangerous',
    description:
      'weakens a security setting (SELinux/AppArmor, kernel parameters, PAM, alternatives, capabilities, set-uid bits)',
  },
  {
    id: 'hijack-path',
    tier: 'dangerous',
    opaque: true,
    description:
      'puts a temporary or relative directory first on PATH, preloads a library, loads code from a shared directory, or sets a command variable that hides code',
  },
  {
    id: 'git-hook',
    tier: 'dangerous',
    opaque: true,
    description: 'installs code git runs by itself (hooks path, fsmonitor, hooks outside the project)',
  },
  {
    id: 'protected-file',
    tier: 'dangerous',
    description:
      'a file tool changes a file other programs run or obey later (CI definitions, code owners, agent instructions and settings, editor tasks, .envrc): the person approves the change shown',
  },
  // Storage
  {
    id: 'storage-destroy',
    tier: 'dangerous',
    description:
      'removes or rewrites a volume, pool, array, encrypted device or swap (LVM, ZFS, RAID, LUKS, secure erase)',
  },
  // Version control and infrastructure
  { id: 'git-force-push', tier: 'dangerous', description: 'git push rewrites or deletes remote history' },
  { id: 'git-reset-hard', tier: 'dangerous', description: 'git reset --hard discards uncommitted work' },
  { id: 'git-clean', tier: 'dangerous', description: 'git clean deletes untracked files' },
  {
    id: 'git-history',
    tier: 'dangerous',
    description: 'destroys commits, branches, tags, stashes, reflogs or uncommitted changes',
  },
  { id: 'docker-prune', tier: 'dangerous', description: 'removes Docker data (prune, volume removal)' },
  { id: 'kubectl-delete', tier: 'dangerous', description: 'deletes Kubernetes resources' },
  {
    id: 'terraform-destroy',
    tier: 'dangerous',
    description: 'destroys managed infrastructure (terraform, tofu or pulumi destroy)',
  },
  { id: 'cloud-storage-delete', tier: 'dangerous', description: 'deletes cloud storage recursively' },
  {
    id: 'resource-delete',
    tier: 'dangerous',
    description: 'a resource CLI deletes, destroys, disables, revokes or scales something to zero',
  },
  { id: 'package-remove', tier: 'dangerous', description: 'removes system packages or withdraws published ones' },
  // Host access and traces
  {
    id: 'container-escape',
    tier: 'dangerous',
    description:
      "runs a container or namespace with the host's privileges (privileged, host namespaces, the host's root, system directories or container socket mounted)",
  },
  { id: 'log-wipe', tier: 'dangerous', description: 'erases shell history, system logs or audit records' },
  {
    id: 'access-grant',
    tier: 'dangerous',
    description:
      'grants broad access: an admin or owner role, new long-lived credentials, public visibility, or an admin port open to every address',
  },
  {
    id: 'gpu-fleet',
    tier: 'dangerous',
    description: 'launches cloud machines with GPUs (costly, and the shape of mining with stolen credentials)',
  },
  { id: 'crypto-miner', tier: 'dangerous', description: 'runs a cryptocurrency miner' },
  {
    id: 'expose-service',
    tier: 'dangerous',
    description:
      'exposes a local port to another network: a tunnel (ssh -R, ngrok, cloudflared, tailscale funnel), or a listener on every interface without authentication, relaying to another host or serving a private tree',
  },
  {
    id: 'package-publish',
    tier: 'dangerous',
    description: 'publishes a package, image or chart to a registry others take it from',
  },
  // Host and agent
  {
    id: 'privilege-escalation',
    tier: 'dangerous',
    description:
      "opens a shell as root or another user (sudo -i, su, pkexec bash, an editor's shell escape under sudo) or hands sudo a password",
  },
  {
    id: 'boot-kernel',
    tier: 'dangerous',
    description:
      'loads or removes kernel modules or extensions, or changes the boot loader, boot entries or firmware variables',
  },
  {
    id: 'remote-access',
    tier: 'dangerous',
    description:
      'turns on remote login or remote control of the machine (an SSH server, screen sharing, remote desktop)',
  },
  {
    id: 'persistence',
    tier: 'dangerous',
    description:
      'installs something that starts by itself later (a user service or timer, a login item, a launch agent, an autostart entry)',
  },
  {
    id: 'agent-safety',
    tier: 'dangerous',
    description:
      "changes an AI agent's own permission, sandbox or hook settings, or starts an agent with its safety checks bypassed",
  },
  {
    id: 'source-redirect',
    tier: 'dangerous',
    description:
      'redirects where git or a package manager fetches code from (url.*.insteadOf, a proxy, another registry)',
  },
  {
    id: 'repo-protection',
    tier: 'dangerous',
    description:
      "changes what protects a repository through its host's API (branch protection, rulesets, collaborators, deploy keys, webhooks, Actions permissions)",
  },
  {
    id: 'credential-dump',
    tier: 'dangerous',
    description:
      "reads credentials out of the system's memory or password stores (an LSASS dump, the SAM hive, a keychain)",
  },
  // Production and infrastructure state
  {
    id: 'production-change',
    tier: 'dangerous',
    description:
      "applies, deploys or edits something aimed at production (a context, namespace, stack, project or environment named prod) or a cluster's kube-system",
  },
  {
    id: 'infra-state',
    tier: 'dangerous',
    description: 'rewrites or unlocks infrastructure state by hand (terraform force-unlock, state push)',
  },
  {
    id: 'dns-change',
    tier: 'dangerous',
    description: "points the machine's name resolution at other DNS servers",
  },
  // Acting towards other people
  {
    id: 'send-message',
    tier: 'dangerous',
    description: "sends an email, chat message, SMS or public comment in the user's name",
  },
  {
    id: 'remote-publish',
    tier: 'dangerous',
    description:
      "publishes a message or command to another machine's broker (MQTT, NATS, Kafka, AMQP, Redis) or calls an acting gRPC method there",
  },
  { id: 'payment', tier: 'dangerous', description: 'moves money or changes billing through a payment API or CLI' },
  // tether's own control plane, driven from inside a run (src/detector/checks/control-plane.ts)
  { id: 'self-approval', tier: 'hardline', description: "decides a run's pending approval from inside a run" },
  {
    id: 'control-plane',
    tier: 'dangerous',
    description: 'starts, signals, cancels or serves tether runs, or changes workflows on a Temporal server',
  },
  // Exfiltration
  { id: 'exfiltration', tier: 'dangerous', description: 'sends credentials, keys or secrets to the network' },
  // What cannot be checked
  {
    id: 'dynamic-command',
    tier: 'dangerous',
    opaque: true,
    description: 'the command name or the code it runs is computed at run time, so it cannot be checked',
  },
  {
    id: 'unparsed',
    tier: 'dangerous',
    opaque: true,
    description: 'the command could not be parsed, so it cannot be checked',
  },
  { id: 'too-deep', tier: 'dangerous', opaque: true, description: 'commands nested too deeply to check' },
  {
    id: 'check-failed',
    tier: 'dangerous',
    opaque: true,
    description: 'the checker failed while reading the command (a defect to report), so it cannot be checked',
  },
  { id: 'too-long', tier: 'dangerous', opaque: true, description: 'a command line too long to check' },
  {
    id: 'changed-before-run',
    tier: 'dangerous',
    opaque: true,
    description: 'a file it runs or loads is changed by the same command line first',
  },
  {
    id: 'changes-held-file',
    tier: 'dangerous',
    opaque: true,
    description: 'changes a file a running background process was checked on and may still run',
  },
  // Channels beyond the command line
  {
    id: 'unread-script',
    tier: 'dangerous',
    opaque: true,
    description: 'runs a script whose content could not be read and checked',
  },
  {
    id: 'carried-code',
    tier: 'dangerous',
    opaque: true,
    description:
      'leaves code for later commands to run (an exported PAGER, BASH_ENV, HOME or NODE_OPTIONS, git configuration, a file the code reads)',
  },
  {
    id: 'evaluated-value',
    tier: 'dangerous',
    opaque: true,
    description: 'bash evaluates a value again as code, and it holds a command or is known only at run time',
  },
  {
    id: 'line-editing',
    tier: 'dangerous',
    opaque: true,
    description:
      'input typed at a terminal or interactive shell goes through line editing or history, which can change what runs',
  },
  // CI/CD and supply chain
  {
    id: 'ci-tampering',
    tier: 'dangerous',
    description:
      "changes a CI/CD pipeline so it leaks its secrets or runs fetched code, removes a security workflow, or sets a pipeline's secrets",
  },
  { id: 'ci-deploy', tier: 'dangerous', description: 'starts a CI/CD pipeline that deploys, releases or publishes' },
  {
    id: 'ci-runner',
    tier: 'dangerous',
    description: "registers this machine as a CI runner: the pipelines' owners run code on it from then on",
  },
  {
    id: 'hardware-control',
    tier: 'dangerous',
    description:
      'powers off, re-boots or re-configures a machine through its management controller or hypervisor (IPMI, iDRAC, iLO, Redfish, vSphere)',
  },
  {
    id: 'supply-chain',
    tier: 'dangerous',
    description:
      'installs from an untrusted source (a look-alike package name, an extra or unsigned index), edits a lockfile by hand or adds an install script that runs fetched code',
  },
  {
    id: 'secret-read',
    tier: 'dangerous',
    description:
      'shows a secret in its output (a credential file, a secret store, a token printer, a cluster secret): the model reads it and the run keeps it',
  },
  {
    id: 'forge-write',
    tier: 'dangerous',
    description:
      "acts on a code forge in the user's name: opens, merges, closes or reviews pull requests and issues, comments, releases, tags or changes a repository",
  },
  {
    id: 'resource-abuse',
    tier: 'dangerous',
    description:
      "exhausts the machine's or another host's resources: huge allocations, disk fillers, stress tools, process floods, traffic floods, huge scale-ups",
  },
  {
    id: 'test-tampering',
    tier: 'dangerous',
    description:
      'makes checks pass without running them: CI steps, tests or test scripts neutralised, code owners changed, hooks or CI skipped on a push to the main branch',
  },
  // Tools tether cannot read: what they do is what their server says
  {
    id: 'untrusted-mcp-tool',
    tier: 'dangerous',
    description:
      'calls a tool of an MCP server not marked trusted, and the tool does not say it only reads (no readOnlyHint): it may delete, send or write',
  },
];

export const RULES: ReadonlyMap<string, Rule> = new Map(list.map((r) => [r.id, r]));

/** Whether a finding's rule means tether could not read what runs (see Rule.opaque). */
export function isOpaqueRule(id: string): boolean {
  return RULES.get(id)?.opaque === true;
}

export function rule(id: string): Rule {
  const r = RULES.get(id);
  if (!r) throw new Error(`unknown approval rule '${id}'`);
  return r;
}
