// Identity and security posture: users, groups, passwords, sudoers and SSH keys; SELinux/AppArmor switches, kernel
// parameters, PAM, alternatives, capabilities; PATH and preload hijacks through variable assignments. Pure.
import { has, parseFlags } from '../engine/argv.js';
import type { Word } from '../engine/words.js';
import { isCommandVariable, hidesCode } from '../engine/code-in-options.js';
import { checkHistoryVariable } from './traces.js';
import { agentSafetyVariable } from './agents.js';
import { settingVariable } from './settings.js';
import { always, unlessArg, when, whenArg, type Check, type CheckContext } from './types.js';
import { judges } from './registry.js';
import { keyTable } from '../engine/names.js';

const postureUnless = (...readOnly: string[]): Check =>
  when('security-posture', (w) => w.length > 0 && !w.some((t) => readOnly.includes(t)));

/** sysctl KEY reads; sysctl -w KEY=VALUE, sysctl KEY=VALUE and sysctl -p FILE write. */
const sysctl = when('security-posture', (_w, cmd) => {
  const f = parseFlags(cmd.args, ['-p', '--load', '--pattern', '-r']);
  const loads = f.values.has('-p') || f.values.has('--load') || (has(f, 'p', '--load') && f.operands.length > 0);
  return loads || has(f, 'w', '--write') || f.operands.some((o) => o.text.includes('='));
});

const authselect = when('security-posture', (w) => {
  const sub = w.find((t) => !t.startsWith('-'));
  return sub !== undefined && sub !== '' && !/^(current|list|list-features|show|check|requirements|test)$/.test(sub);
});

/** auditctl -D deletes every audit rule, -e 0 turns auditing off; -l and -s only read. */
const auditctl = when(
  'security-posture',
  (w) => w.includes('-D') || (w.includes('-e') && w[w.indexOf('-e') + 1] === '0') || w.includes('-e0'),
);

/** launchctl unload/bootout/disable of a system daemon stops it (and keeps it stopped with -w). */
const launchctl = when(
  'service-stop',
  (w) =>
    /^(unload|bootout|disable|remove|kill)$/.test(w[0] ?? '') &&
    w.some((t) => /^\/(System\/)?Library\/LaunchDaemons\/|^system\//.test(t)),
);

judges(
  import.meta.url,
  {
    auditctl,
    // macOS: spctl --master-disable turns Gatekeeper off.
    spctl: whenArg('security-posture', /^--(master|global)-disable$|^--disable$/),
    launchctl,
    'useradd adduser usermod userdel deluser groupadd addgroup groupdel delgroup groupmod gpasswd chpasswd chgpasswd chfn newusers vipw vigr pwconv pwunconv ssh-copy-id':
      always('account-change'),
    // Tools that only change accounts unless given one of their read-only options.
    passwd: unlessArg('account-change', /^(-S|--status|-a|--all)$/),
    chage: unlessArg('account-change', /^(-l|--list)$/),
    chsh: unlessArg('account-change', /^(-l|--list-shells)$/),
    visudo: unlessArg('account-change', /^(-c|--check)$/),
    setenforce: postureUnless(),
    'aa-teardown aa-disable aa-complain aa-audit authconfig setsebool': always('security-posture'),
    apparmor_parser: whenArg('security-posture', /^-[a-zA-Z]*R|^--remove$/),
    authselect,
    'pam-auth-update': postureUnless('--help'),
    sysctl,
    // --set/--install/--remove/--config change which program a system name runs.
    'update-alternatives alternatives': whenArg(
      'security-posture',
      /^--(set|install|remove|remove-all|config|auto|all|set-selections)$/,
    ),
    setcap: postureUnless('-v', '--verify'),
    semanage: postureUnless('-l', '--list'),
  },
  { claims: true },
);

/** Variables whose value names code to load, as the list of paths they load from. */
const CODE_PATHS = keyTable<(v: string) => string[]>({
  'BASH_ENV ENV PYTHONSTARTUP': (v) => [v],
  'PYTHONPATH PERL5LIB RUBYLIB NODE_PATH': (v) => v.split(':'),
  'LUA_PATH LUA_CPATH': (v) => v.split(';'),
  TCLLIBPATH: (v) => v.split(/\s+/),
  NODE_OPTIONS: (v) =>
    [...v.matchAll(/(?:--require|-r|--import|--loader|--experimental-loader)[=\s]+(\S+)/g)].map((m) => m[1]!),
});
/** Search paths where an empty entry or `.` means the current directory. */
const LIST_VARS = new Set(['PYTHONPATH', 'PERL5LIB', 'RUBYLIB', 'NODE_PATH']);

/** Directories anyone can write to: first on PATH, they decide what every later command name runs. */
const SHARED_DIRS = /^(\/tmp|\/var\/tmp|\/dev\/shm|\$TMPDIR|\$\{TMPDIR\})(\/|$)/;

/** An installed shell, by path or by the name PATH finds it under (`$(command -v zsh)` too). */
const STANDARD_SHELL =
  /^(((\/usr)?(\/local)?|\/opt\/homebrew)\/bin\/|\$\((command -v|which) )?(sh|bash|dash|zsh|ksh|mksh|fish|tcsh|csh|ash|yash)\)?$/;

/**
 * Variables naming directories or files that a library or runtime loads compiled code or its own code from: glibc's
 * gconv modules (GCONV_PATH), OpenSSL's configuration, engines and providers, GIO, GStreamer, Qt, GTK and gdk-pixbuf
 * modules, SASL and PKCS#11 plugins, GPU drivers, Python's standard library (PYTHONHOME). Set to anything but the
 * system's own directories, whatever is put there runs inside the program (`GCONV_PATH=. iconv -f EVIL ...`).
 */
const MODULE_PATHS =
  /^(GCONV_PATH|OPENSSL_CONF|OPENSSL_ENGINES|OPENSSL_MODULES|GIO_MODULE_DIR|GIO_EXTRA_MODULES|GST_PLUGIN_PATH(_1_0)?|GST_PLUGIN_SYSTEM_PATH(_1_0)?|GST_PLUGIN_SCANNER(_1_0)?|QT_PLUGIN_PATH|QT_QPA_PLATFORM_PLUGIN_PATH|GTK_PATH|GTK_EXE_PREFIX|GTK_IM_MODULE_FILE|GDK_PIXBUF_MODULEDIR|GDK_PIXBUF_MODULE_FILE|SASL_PATH|PKCS11_MODULE_PATH|PYTHONHOME|LIBGL_DRIVERS_PATH|LIBVA_DRIVERS_PATH|VDPAU_DRIVER_PATH|__EGL_VENDOR_LIBRARY_DIRS|__EGL_VENDOR_LIBRARY_FILENAMES|VK_ICD_FILENAMES|VK_DRIVER_FILES|VK_LAYER_PATH|VK_ADD_LAYER_PATH|MAGICK_CODER_MODULE_PATH)$/;
/** The system's own directories (installed by its packages), where module variables commonly point. */
const SYSTEM_DIRS = /^(\/usr|\/lib|\/lib32|\/lib64|\/etc|\/opt|\/nix\/store|\/snap|\/System|\/Library)\//;

/** `PATH=...`, `export PATH=...`, `LD_PRELOAD=...`: a variable that decides which code later commands run. */
export function checkAssignment(name: string, value: Word, ctx: CheckContext): void {
  checkHistoryVariable(name, value, ctx);
  settingVariable(name, value, ctx);
  agentSafetyVariable(name, value, ctx);
  const hijack = (why?: string): void =>
    ctx.add('hijack-path', why ? `${name}=${value.text} (${why})` : `${name}=${value.text}`);
  if (/^(LD_PRELOAD|LD_AUDIT|DYLD_INSERT_LIBRARIES)$/.test(name) && value.text !== '') return hijack();
  if (MODULE_PATHS.test(name) && value.text !== '') {
    const entries = value.text.split(/[:;]/).filter((e) => e !== '');
    if (value.dynamic || entries.length === 0 || entries.some((e) => !SYSTEM_DIRS.test(e)))
      return hijack('the program loads code from there');
  }
  // GTK_MODULES by path: GTK loads that library into every GTK program.
  if (name === 'GTK_MODULES' && value.text.split(':').some((m) => m.includes('/') && !SYSTEM_DIRS.test(m)))
    return hijack('GTK loads that library');
  // PERL5DB is the Perl code `perl -d` runs as its debugger.
  if (name === 'PERL5DB' && value.text !== '') {
    if (value.dynamic) ctx.computed(value, name, 'perl');
    else ctx.code(value.text, 'perl');
  }
  // A command run later, unseen (PROMPT_COMMAND before every prompt, a pager, GIT_SSH_COMMAND).
  if (isCommandVariable(name) && !value.dynamic && hidesCode(value.text)) return hijack();
  // Files and directories a shell or runtime loads code from: from a shared directory, anyone's code runs.
  const loaded = CODE_PATHS[name]?.(value.text) ?? [];
  if (loaded.some((e) => SHARED_DIRS.test(e) || (LIST_VARS.has(name) && (e === '.' || e === '')))) return hijack();
  // SHELL is what script, su, vim's :sh, make and others start: anything but an installed shell runs other code.
  if (name === 'SHELL' && value.text !== '' && !STANDARD_SHELL.test(value.text)) return hijack();
  if (name !== 'PATH' && name !== 'LD_LIBRARY_PATH') return;
  const entries = value.text.split(':');
  const own = entries.findIndex((e) => e === '$PATH' || e === '${PATH}' || e === `$${name}` || e === `\${${name}}`);
  // The entries searched before the old value (all of them when PATH is replaced).
  const first = own < 0 ? entries : entries.slice(0, own);
  if (first.some((e) => e === '' || e === '.' || e === './' || SHARED_DIRS.test(e))) hijack();
}
