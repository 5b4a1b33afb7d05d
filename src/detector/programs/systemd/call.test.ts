// systemctl and loginctl read once for every judgement (call.ts, systemd/checks.ts).
import { describe, expect, it } from 'vitest';
import { argvOf as cli } from '../../../../test/support/argv-line.js';
import { detectorRules } from '../../../../test/support/detector-rules.js';
import { systemdCall } from './call.js';

const rules = detectorRules();

describe('systemdCall', () => {
  it('skips options with their values to find the verb and what it acts on', () => {
    expect(systemdCall(cli('systemctl -H host --no-block restart gdm sshd'))).toEqual({
      verb: 'restart',
      targets: ['gdm', 'sshd'],
      user: false,
    });
    expect(systemdCall(cli('systemctl --user -p Id show app'))).toMatchObject({ verb: 'show', user: true });
  });
});

describe('a systemctl or loginctl command', () => {
  it.each([
    ['systemctl -H host restart gdm', 'mass-kill'],
    ['systemctl -M box poweroff', 'shutdown'],
    ['systemctl --no-block stop sshd', 'service-stop'],
    ['loginctl suspend', 'shutdown'],
    ['loginctl --no-ask-password terminate-user bob', 'mass-kill'],
    ['loginctl -H h enable-linger me', 'persistence'],
    ['systemctl --user enable dev.service', 'persistence'],
    ['systemctl enable --now backup.timer', 'persistence'],
    ['systemctl start sshd', 'remote-access'],
    ['systemctl enable --now vncserver@:1', 'remote-access'],
    ['systemctl --global enable agent.service', 'persistence'],
    ['systemctl --user add-wants default.target agent.service', 'persistence'],
    ['systemctl clean --what=state postgresql', 'resource-delete'],
    ['systemctl freeze sshd', 'service-stop'],
  ])('%s: %s', (command, rule) => {
    expect(rules(command)).toContain(rule);
  });

  it.each([
    'systemctl status nginx',
    'systemctl --user stop dev',
    'systemctl --user restart app',
    'systemctl list-units --state failed',
    'loginctl list-sessions',
  ])('%s stays ordinary', (command) => {
    expect(rules(command)).toEqual([]);
  });
});
