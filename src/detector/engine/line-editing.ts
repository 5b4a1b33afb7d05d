// Input typed into an interactive shell or a program on a terminal: the terminal and readline edit each line before
// the program reads it (control keys move, delete and recall lines; `!` and a leading `^` expand history), so the bytes
// judged are not what runs. Such input asks, and so does naming another readline start-up file (INPUTRC), whose key
// bindings and macros type text of their own. Pure.

/** C0 controls other than tab, newline and carriage return; DEL; C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

function controlName(c: string): string {
  const code = c.charCodeAt(0);
  if (code === 0x1b) return 'Escape';
  if (code === 0x7f) return 'Delete';
  if (code < 0x20) return `Ctrl-${String.fromCharCode(code + 64)}`;
  return `U+${code.toString(16).padStart(4, '0').toUpperCase()}`;
}

/** Where bash's history expansion starts in a line: `!` not followed by a blank, `=` or `(`, outside single quotes. */
function historyEvent(line: string): string | undefined {
  let single = false;
  let double = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (c === '\\' && !single) {
      i += 1;
      continue;
    }
    if (c === "'" && !double) single = !single;
    else if (c === '"' && !single) double = !double;
    else if (c === '!' && !single) {
      const next = line[i + 1];
      if (next === undefined || /[\s=(]/.test(next) || (double && next === '"')) continue;
      return line.slice(i, i + 12);
    }
  }
  return undefined;
}

/** Why typed `input` may run something other than its text (a line for the person), or undefined. */
export function lineEditing(input: string): string | undefined {
  const control = CONTROL.exec(input);
  if (control) return `the input holds ${controlName(control[0])}, a key that edits or recalls the line`;
  for (const line of input.split(/\r\n|\r|\n/)) {
    if (/^\s*\^/.test(line)) return `${line.slice(0, 40)} re-runs the last command with a substitution (history)`;
    const event = historyEvent(line);
    if (event !== undefined) return `${event} is expanded from the shell's history`;
  }
  return undefined;
}

/**
 * INPUTRC names the file readline reads its key bindings and macros from (`"z": "\C-a\C-d"` makes a typed `z`
 * edit and run the line): set, like `bind`, it changes what keys type in every interactive shell or readline program
 * that sees it. Why, or undefined.
 */
export function readlineStartFile(name: string, value: { text: string; dynamic: boolean }): string | undefined {
  if (name !== 'INPUTRC' || (value.text === '' && !value.dynamic)) return undefined;
  return `INPUTRC=${value.text.slice(0, 60)} gives readline key bindings and macros from another file, so keys type text of their own`;
}
