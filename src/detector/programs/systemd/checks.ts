// Every judgement of a systemctl or loginctl command on one reading of it (call.ts); each lives with its threat
// class's checks. Start here when one is judged wrongly (`npm run detector:who -- 'systemctl ...'`). Pure.
import { systemdStartsLater } from '../../checks/host.js';
import { familyCheck, judges } from '../../checks/registry.js';
import { sessionsEnded } from '../../checks/shared-processes.js';
import { systemdStopsOrPowers } from '../../checks/system.js';
import { systemdCall, type SystemdCheck } from './call.js';

/** What a systemctl or loginctl command is judged for, with the rules each judgement reports. */
const JUDGEMENTS: readonly SystemdCheck[] = [
  systemdStartsLater, // remote-login services started, units and users that start by themselves (remote-access, persistence)
  systemdStopsOrPowers, // services stopped, the machine powered off or put to sleep (service-stop, shutdown, schedule-unchecked)
  sessionsEnded, // every login session ended (mass-kill)
];

const systemd = familyCheck(systemdCall, JUDGEMENTS);

judges(import.meta.url, { 'systemctl loginctl': systemd }, { claims: true });
