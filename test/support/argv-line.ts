// A command line split on spaces into the argument vector a family reader takes, for the readers' tests.
import { words, type Argv } from '../../src/detector/engine/argv.js';

export function argvOf(line: string): Argv {
  const [name, ...rest] = line.split(' ');
  return { name: name!, written: name!, args: words(rest), viaXargs: false };
}
