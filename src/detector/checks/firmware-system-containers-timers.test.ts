// Host, code and agent routes: management controllers and firmware, system containers, root shells
// handed over by other programs, recurring timers, agents' own control files, and false alarms seen on them
// (dev-server kills, known_hosts appends, syntax checks, PowerShell variables).
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['ipmitool -H 10.1.1.5 -U root -P x power cycle', 'hardware-control'],
  ['ipmitool lan set 1 ipaddr 10.0.0.9', 'hardware-control'],
  ['racadm serveraction hardreset', 'hardware-control'],
  ['govc vm.power -reset /dc/vm/web-2', 'hardware-control'],
  ['govc datastore.rm -ds ssd1 old.vmdk', 'hardware-control'],
  ['flashrom -p internal -w bios.rom', 'boot-kernel'],
  ['incus config set box raw.lxc "lxc.apparmor.profile=unconfined"', 'container-escape'],
  ['lxc config device add box etc disk source=/etc path=/host-etc', 'container-escape'],
  ['ctr -n k8s.io task exec -t --exec-id x etcd sh', 'container-escape'],
  [`sudo awk 'BEGIN { system("/bin/bash -p") }'`, 'privilege-escalation'],
  ['sudo tar cf /dev/null x --checkpoint=1 --checkpoint-action=exec=/bin/sh', 'privilege-escalation'],
  ['sudo machinectl shell alice@', 'privilege-escalation'],
  ['systemd-run --user --on-boot=1min /home/me/.local/bin/sync', 'persistence'],
  ['echo "bash /var/tmp/job.sh" | batch', 'schedule-unchecked'],
  ['ssh -N -D 0.0.0.0:9050 me@relay.example.net', 'expose-service'],
  ['echo \'{"mcpServers":{"x":{"command":"npx","args":["-y","x"]}}}\' > .mcp.json', 'agent-safety'],
  ['ln -sf /dev/null ~/.codeium/windsurf/approvals.log', 'agent-safety'],
  ['gemini mcp add files npx -y @someone/fs-server /', 'agent-safety'],
  ['echo "ZGVsZXRlIGZyb20gdXNlcnM7" | base64 --decode | psql -h db.example.net app', 'sql-delete-all'],
  ['reg add HKCU\\Software\\Microsoft\\Windows\\CurrentVersion\\RunOnce /v a /d b.exe', 'persistence'],
  ['git -c safe.directory=* status', 'security-posture'],
])('%s asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'ipmitool -H 10.1.1.5 -U root -P x sdr elist',
  'ipmitool chassis power status',
  'govc vm.info -r /dc/vm/web-2',
  'fwupdmgr get-updates',
  'lxc config get box limits.cpu',
  'crictl images',
  'sudo find /var/cache/app -name "*.tmp" -print',
  'sudo apt-get install -y fish',
  'systemd-run --user --scope make -j8',
  'ssh -D 1080 -N me@relay.example.net',
  'cat .mcp.json',
  'claude mcp list',
  'pkill -f "python3 -m http.server 8000 --directory build/app.py"',
  'pkill -f ./node_modules/.bin/vite',
  'kill $(lsof -t -i tcp:4173)',
  'ssh-keyscan -t ed25519 gitlab.com >> ~/.ssh/known_hosts',
  'for s in hooks/*.sh; do sh -n "$s" || exit 1; done',
  '$env:DOTNET_CLI_TELEMETRY_OPTOUT = 1',
  'rm -rf "$(pwd)/coverage" "$(pwd)/.nyc_output"',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
