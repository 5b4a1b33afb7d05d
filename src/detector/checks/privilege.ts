// Privilege escalation: an interactive shell as root or another user (sudo -i/-s, sudo su, su, pkexec bash, doas sh,
// sudo python, an editor's shell escape under sudo), and a password handed to sudo on its standard input. What runs
// inside such a shell is not seen by the detector. Pure.
import { parseFlags, peel, words as splitWords, type Argv } from '../engine/argv.js';
import { names } from '../engine/names.js';
import type { Word } from '../engine/words.js';
import { runsCode } from './exec.js';
import { show, stdinText, type CheckContext, type Io } from './types.js';

const ELEVATORS = /(^|\/)(sudo|doas|pkexec|run0|machinectl|runuser)$/;
const EDITORS = /^(vim?|nvim|ex|view|rvim|less|more|man|nano|emacs|ed|pico|vimdiff)$/;
const SU_VALUE_OPTS = names('-c --command --session-command -s --shell -g --group -G --supp-group -w -u --user');

/** `sudo -i`, `sudo su -`, `pkexec /bin/bash`, `doas -s`, `sudo vim -c ':!sh'`, `echo pw | sudo -S ...`. */
export function checkPrivilege(words: Word[], argv: Argv | null, io: Io, ctx: CheckContext): void {
  const at = words.findIndex((w) => ELEVATORS.test(w.text));
  const fed = stdinText(io) !== undefined || io.upstream.length > 0 || io.stdinFile !== undefined;
  // su without a command (`su`, `su -`, `su - root`) is an interactive shell as that user, with or without sudo; the
  // command of `su -c CMD` (and runuser's) runs as that user, judged as sudo's is (`su -c bash` is a root shell).
  if (argv?.name === 'su' || argv?.name === 'runuser') {
    const f = parseFlags(argv.args, SU_VALUE_OPTS);
    const c = f.values.get('-c') ?? f.values.get('--command') ?? f.values.get('--session-command');
    if (c !== undefined) return asRoot(peel(splitWords(c.trim().split(/\s+/))).argv, show(argv), fed, ctx);
    const info = argv.args.some((a) => a.text === '--help' || a.text === '--version');
    if (argv.name === 'su' && !info) return ctx.add('privilege-escalation', show(argv));
  }
  if (at < 0) return;
  // The words before the command that runs (all of them when nothing runs).
  const end = argv ? words.length - argv.args.length - 1 : words.length;
  const before = words.slice(at + 1, end).map((w) => w.text);
  const detail = words
    .map((w) => w.text)
    .join(' ')
    .slice(0, 120);
  // A password written into the command line and fed to `sudo -S`.
  if (fed && before.some((t) => /^-[a-zA-Z]*S/.test(t) || t === '--stdin'))
    ctx.add('privilege-escalation', `${detail} (a password on sudo's standard input)`);
  const mc = words.findIndex((w) => /(^|\/)machinectl$/.test(w.text));
  if (mc >= 0) {
    // `machinectl shell`, `machinectl shell root@.host`: a shell (the target is read as a command by the peeler).
    const own = (argv?.name === 'machinectl' ? argv.args : words.slice(mc + 1, end)).map((w) => w.text);
    const verb = own.find((t) => !t.startsWith('-')) ?? '';
    if ((argv === null || argv.name === 'machinectl' || /@/.test(argv.written)) && /^(shell|login)$/.test(verb))
      ctx.add('privilege-escalation', detail);
    return;
  }
  // `sudo -i`, `sudo -s`, `doas -s`, and what starts a shell given no command (`pkexec`, `sudo chroot /`): a root shell.
  if (argv === null) {
    if (peel(words).shell) ctx.add('privilege-escalation', detail);
    return;
  }
  asRoot(argv, detail, fed, ctx);
}

/** What the command run as root (or another user) starts: a shell, an interpreter's prompt, an editor's escape. */
function asRoot(argv: Argv | null, detail: string, fed: boolean, ctx: CheckContext): void {
  if (argv === null) return;
  const args = argv.args.map((a) => a.text);
  // A shell or interpreter with no program (`bash --login`, `bash -`, `python3 -i`): it reads commands from the terminal.
  const interactive =
    !fed && runsCode(argv.name) && args.every((t) => /^(-[abdf-zA-Z]*|--(?!version$|help$)[\w-]+)$/.test(t));
  // An editor, pager or man page has a shell escape (`:!sh`, `!sh`) that runs as root.
  const escape =
    argv.name !== null && EDITORS.test(argv.name) && args.some((t) => /(^|[:\s])!|^\+?:?(sh|shell|terminal)\b/.test(t));
  if (interactive || escape) ctx.add('privilege-escalation', detail);
  // A program that starts a shell for its caller (`sudo find . -exec /bin/sh \;`, `sudo awk 'BEGIN{system("/bin/sh")}'`,
  // `sudo tar --checkpoint-action=exec=sh`): a root shell, whichever program hands it over. A shell given as an
  // option's value (`chsh -s /bin/zsh`) and containers' own shells (`docker exec -it c sh`) are not this.
  if (!runsCode(argv.name) && !CONTAINER_CLIS.test(argv.name ?? '')) {
    const spawns = args.some((t, i) => SHELL_WORD.test(t) && !/^(-s|--shell|-l)$/.test(args[i - 1] ?? ''));
    if (spawns) ctx.add('privilege-escalation', `${detail} (a shell started as root)`);
  }
}

const SHELL_WORD = /(^|[\s"'(=,;{])(\/usr)?(\/local)?\/bin\/(ba|z|da|k|c|tc|fi|a)?sh\b|^(ba|z|da|k)?sh$/;
const CONTAINER_CLIS = /^(docker|podman|nerdctl|kubectl|oc|lxc|incus|ctr|chsh|usermod|useradd|adduser)$/;
