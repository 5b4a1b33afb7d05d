// Machines driven through their management controller or hypervisor, and firmware: IPMI (`ipmitool chassis power
// off`, `chassis bootdev pxe`, users, LAN settings, raw commands, firmware), Dell racadm, HPE ilorest, redfishtool,
// VMware govc power and destroy verbs, firmware flashing (`fwupdmgr update`, `flashrom -w`). Reads (status, sensors,
// sdr, fru, `fwupdmgr get-devices`) stay ordinary. Pure.
import { show, when, type Check } from './types.js';
import { judges } from './registry.js';

const words = (cmd: Parameters<Check>[0]): string[] =>
  cmd.args.map((a) => a.text).filter((t, i, all) => !t.startsWith('-') && !/^-[IHUPpLRNTfEyK]$/.test(all[i - 1] ?? ''));

/** ipmitool [-I lanplus -H h -U u -P p] GROUP VERB ...: what changes the machine or its controller. */
const ipmitool: Check = (cmd, _io, ctx) => {
  const [group, verb, arg] = words(cmd).map((w) => w.toLowerCase());
  const changes =
    (group === 'chassis' &&
      (verb === 'power'
        ? !/^(status)$/.test(arg ?? 'status')
        : /^(bootdev|bootparam|identify|policy)$/.test(verb ?? ''))) ||
    (group === 'power' && !/^(status)?$/.test(verb ?? '')) ||
    (group === 'mc' && /^(reset|setenables|watchdog|selftest)$/.test(verb ?? '')) ||
    (/^(lan|user|channel|sol|sel|sensor|pef|dcmi|delloem|firewall|kontronoem|sdr)$/.test(group ?? '') &&
      /^(set|enable|disable|priv|clear|reset|activate|thresh|power|delete|add)$/.test(verb ?? '')) ||
    /^(raw|i2c|hpm|fwum|ekanalyzer|bootdev|exec)$/.test(group ?? '');
  if (changes) ctx.add('hardware-control', show(cmd));
};

/** racadm subcommands that change the controller or the server, and those of them that only read. */
const RACADM_CHANGES =
  /^(set|config|racreset|racresetcfg|systemerase|update|fwupdate|jobqueue|storage|raid|sslcertupload|useradd|remoteimage|lclog)$/;
const RACADM_READS = /^(jobqueue view|storage get|raid get)$/;

/** racadm serveraction powerdown, racadm set ..., racadm jobqueue create: Dell iDRAC. */
const racadm = when('hardware-control', (_w, cmd) => {
  const [verb, arg] = words(cmd).map((w) => w.toLowerCase());
  const changes = verb === 'serveraction' ? !/^powerstatus$/.test(arg ?? '') : RACADM_CHANGES.test(verb ?? '');
  return changes && !RACADM_READS.test(`${verb} ${arg}`);
});

/** ilorest and redfishtool verbs that change the server or its controller. */
const REDFISH_CHANGES =
  /\b(reboot|reset|set\w*|commit|patch|post|delete|firmwareupdate|flashfwpkg|factoryreset|factorydefaults|iloreset|serverstate|bootorder|onetimeboot|secureboot|useraccounts\s+add|uploadcomp)\b/;

/** ilorest reboot|set|commit|firmwareupdate|factoryreset..., redfishtool Systems reset|setBootOverride|patch. */
const redfish = when('hardware-control', (_w, cmd) => REDFISH_CHANGES.test(words(cmd).join(' ').toLowerCase()));

/** govc verbs that stop a host or remove a machine, a store or a snapshot. */
const GOVC_DESTROYS =
  /^host\.(shutdown|reboot|maintenance\.enter|disconnect|remove)$|^(vm|host|datastore|cluster|dvs|pool)\.(unregister|rm|remove|destroy)$|^snapshot\.(remove|revert)$/;

/** govc vm.power -off|-reset|-suspend|-s, host.shutdown, host.maintenance.enter, vm.destroy (the verb check). */
const govc = when('hardware-control', (w) => {
  const verb = w.find((t) => !t.startsWith('-')) ?? '';
  return (
    (verb === 'vm.power' && w.some((t) => /^-(off|reset|suspend|s|r)(=true)?$/.test(t))) || GOVC_DESTROYS.test(verb)
  );
});

/** Firmware written: `fwupdmgr update|install|downgrade|switch-branch`, `flashrom -w`, `fwupdtool install`. */
const firmware = when('boot-kernel', (w, cmd) =>
  cmd.name === 'flashrom'
    ? w.some((t) => /^(-w|--write|-E|--erase)$/.test(t))
    : /^(update|upgrade|install|install-blob|downgrade|reinstall|switch-branch|activate|unlock|modify-config|flash-firmware|clear-results|security-fix)$/.test(
        w.find((t) => !t.startsWith('-')) ?? '',
      ),
);

judges(import.meta.url, {
  'ipmitool ipmiutil': ipmitool,
  'racadm idracadm': racadm,
  'ilorest redfishtool': redfish,
  govc,
  'fwupdmgr fwupdtool flashrom': firmware,
});
