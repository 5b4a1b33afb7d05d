// cmake for the gate: `cmake -P FILE` (a script), `cmake -E CMD` (its built-in commands, judged like rm, cp, mv...),
// and configuring a project (CMakeLists.txt, -C cache scripts, toolchain files), which runs the commands of
// execute_process and exec_program. A script asks unless every command in it is one the gate knows to be inert or
// judges; a project's own build description (targets, flags, find_package) runs nothing while it configures. Pure.
import type { Argv } from '../../engine/argv.js';
import type { CheckContext } from '../../checks/types.js';
import { normalizePath } from '../../../common/paths.js';
import { literal, type Word } from '../../engine/words.js';
import { keyTable, names } from '../../engine/names.js';

const joinKey = (dir: string, rest: string): string =>
  normalizePath(rest.startsWith('/') || dir === '.' ? rest : `${dir}/${rest}`);

interface Call {
  name: string;
  args: string[];
}

/** Escapes in a quoted argument that are not the character itself (a backslash-newline continues the line). */
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '\n': '' };

/** Splits cmake source into command invocations with their arguments (quoted, bracket and unquoted). */
export function cmakeCalls(text: string): Call[] {
  const calls: Call[] = [];
  let i = 0;
  const n = text.length;
  const bracket = (at: number): { end: number; body: string } | undefined => {
    const m = /^\[(=*)\[/.exec(text.slice(at, at + 64));
    if (!m) return undefined;
    const close = text.indexOf(`]${m[1]}]`, at + m[0].length);
    const end = close < 0 ? n : close + m[1]!.length + 2;
    return { end, body: text.slice(at + m[0].length, close < 0 ? n : close).replace(/^\n/, '') };
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '#') {
      const b = bracket(i + 1);
      i = b ? b.end : text.indexOf('\n', i) < 0 ? n : text.indexOf('\n', i);
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i, i + 256));
    if (!id) {
      i += 1;
      continue;
    }
    let j = i + id[0].length;
    while (j < n && /[ \t]/.test(text[j]!)) j += 1;
    if (text[j] !== '(') {
      i = j;
      continue;
    }
    j += 1;
    const args: string[] = [];
    let depth = 0;
    let word = '';
    let inWord = false;
    const flush = (): void => {
      if (inWord) args.push(word);
      word = '';
      inWord = false;
    };
    while (j < n) {
      const ch = text[j]!;
      if (ch === '"') {
        for (j += 1; j < n && text[j] !== '"'; j += 1) {
          const e = text[j] === '\\' && j + 1 < n ? text[(j += 1)]! : undefined;
          word += e === undefined ? text[j] : (ESCAPES[e] ?? e);
        }
        inWord = true;
        j += 1;
        continue;
      }
      const b = ch === '[' && !inWord ? bracket(j) : undefined;
      if (b) {
        args.push(b.body);
        j = b.end;
        continue;
      }
      if (ch === '#') {
        flush();
        const b = bracket(j + 1);
        j = b ? b.end : text.indexOf('\n', j) < 0 ? n : text.indexOf('\n', j);
        continue;
      }
      if (ch === '(') depth += 1;
      if (ch === ')') {
        if (depth === 0) break;
        depth -= 1;
      }
      if (/\s/.test(ch) || ch === ';') flush();
      else {
        word += ch === '\\' && j + 1 < n ? text[(j += 1)] : ch;
        inWord = true;
      }
      j += 1;
    }
    flush();
    calls.push({ name: id[0].toLowerCase(), args });
    i = j + 1;
  }
  return calls;
}

/** Commands that only compute, print or define (in a script or a project): they run nothing. */
const INERT =
  /^(message|set|unset|if|elseif|else|endif|foreach|endforeach|while|endwhile|break|continue|return|math|string|list|cmake_minimum_required|cmake_policy|cmake_parse_arguments|cmake_path|get_filename_component|option|include_guard|mark_as_advanced|separate_arguments|function|endfunction|macro|endmacro|block|endblock|get_cmake_property|get_property|set_property|site_name|variable_watch)$/;

/** Commands that describe the project for the build system; configuring runs none of them (they run at build time). */
const DESCRIBES =
  /^(project|add_executable|add_library|add_custom_command|add_custom_target|add_dependencies|add_compile_options|add_compile_definitions|add_definitions|add_link_options|add_test|enable_testing|enable_language|target_\w+|set_target_properties|set_tests_properties|set_source_files_properties|set_directory_properties|include_directories|link_directories|link_libraries|find_package|find_program|find_library|find_path|find_file|install|export|configure_file|source_group|check_\w+|try_compile|try_run|fetchcontent_\w+|cpack_\w+|ctest_\w+|aux_source_directory|define_property|get_target_property|get_directory_property|get_source_file_property|get_test_property|build_command|create_test_sourcelist|qt\w+|pkg_check_modules|pkg_search_module)$/;

/** file() subcommands that only read or compute. */
const FILE_READS =
  /^(READ|STRINGS|GLOB|GLOB_RECURSE|RELATIVE_PATH|TO_CMAKE_PATH|TO_NATIVE_PATH|MD5|SHA1|SHA224|SHA256|SHA384|SHA512|SHA3_\d+|TIMESTAMP|SIZE|READ_SYMLINK|REAL_PATH|GET_RUNTIME_DEPENDENCIES)$/;

/** A cmake argument as a word: a `${VAR}` or `$ENV{VAR}` reference is known only when cmake runs. */
const word = (t: string): Word => ({ ...literal(t), dynamic: /\$(ENV)?\{/.test(t) });

/** execute_process(COMMAND a b COMMAND c d ...): each COMMAND is a process (a pipeline), judged as a command. */
function executeProcess(args: string[], ctx: CheckContext): void {
  const KEYWORDS =
    /^(WORKING_DIRECTORY|TIMEOUT|RESULT_VARIABLE|RESULTS_VARIABLE|OUTPUT_VARIABLE|ERROR_VARIABLE|INPUT_FILE|OUTPUT_FILE|ERROR_FILE|OUTPUT_QUIET|ERROR_QUIET|COMMAND_ECHO|OUTPUT_STRIP_TRAILING_WHITESPACE|ERROR_STRIP_TRAILING_WHITESPACE|ENCODING|ECHO_OUTPUT_VARIABLE|ECHO_ERROR_VARIABLE|COMMAND_ERROR_IS_FATAL)$/;
  let current: Word[] | undefined;
  const done = (): void => {
    if (current && current.length > 0) ctx.argv(current);
    current = undefined;
  };
  for (const a of args) {
    if (a === 'COMMAND') {
      done();
      current = [];
    } else if (KEYWORDS.test(a)) done();
    else current?.push(word(a));
  }
  done();
}

/** `cmake -E` commands that stand for a program: the program with the options they imply. */
const TOOL_PROGRAMS = keyTable<string>({
  rm: 'rm',
  remove: 'rm -f',
  remove_directory: 'rm -rf',
  'copy copy_if_different': 'cp',
  'copy_directory copy_directory_if_different': 'cp -r',
  rename: 'mv',
  make_directory: 'mkdir -p',
  create_symlink: 'ln -s',
  create_hardlink: 'ln',
  'touch touch_nocreate': 'touch',
  tar: 'tar',
  env: 'env',
});

/** `cmake -E` commands that only print, compare or hash. */
const TOOL_PRINTS = new Set(
  names(`echo echo_append cat compare_files environment capabilities true false sleep md5sum sha1sum sha224sum
    sha256sum sha384sum sha512sum help delete_regv server`),
);

/** `cmake -E NAME ARGS`: the built-in command, as the program it stands for. */
export function cmakeTool(args: readonly Word[], ctx: CheckContext): void {
  const [sub, ...rest] = args;
  if (!sub) return;
  if (Object.hasOwn(TOOL_PROGRAMS, sub.text)) ctx.argv([...names(TOOL_PROGRAMS[sub.text]!).map(literal), ...rest]);
  else if (sub.text === 'time') ctx.argv(rest);
  else if (sub.text === 'chdir') {
    if (rest.length > 1) ctx.argv(rest.slice(1));
  } else if (!TOOL_PRINTS.has(sub.text))
    ctx.add('unread-script', `cmake -E ${sub.text}: a cmake built-in command the gate does not judge`);
}

/**
 * Judges cmake code read from `key`. `script`: run with -P (or -C), where any command the gate does not know asks;
 * otherwise a project's CMakeLists.txt being configured, where only the commands that run something are judged.
 */
export function judgeCmake(key: string, text: string, script: boolean, ctx: CheckContext): void {
  const calls = cmakeCalls(text);
  const defined = new Set(calls.filter((c) => /^(function|macro)$/.test(c.name)).map((c) => c.args[0]?.toLowerCase()));
  const dir = key.includes('/') ? key.slice(0, key.lastIndexOf('/')) : '.';
  const language = script ? 'cmake' : 'cmake-project';
  for (const { name, args } of calls) {
    if (name === 'execute_process') executeProcess(args, ctx);
    else if (name === 'exec_program') {
      // exec_program(EXE [DIR] [ARGS "args"] ...): the program with its argument string, run by a shell.
      const at = args.indexOf('ARGS');
      const extra = at < 0 ? [] : args.slice(at + 1).filter((a) => !/^(OUTPUT_VARIABLE|RETURN_VALUE)$/.test(a));
      const line = [args[0] ?? '', ...extra.slice(0, 1)].join(' ');
      if (/\$(ENV)?\{/.test(line)) ctx.computed(word(line), 'cmake exec_program');
      else ctx.script(line);
    } else if (name === 'file') {
      const sub = args[0]?.toUpperCase() ?? '';
      if (sub === 'REMOVE_RECURSE') ctx.argv([literal('rm'), literal('-rf'), ...args.slice(1).map(word)]);
      else if (sub === 'REMOVE') ctx.argv([literal('rm'), literal('-f'), ...args.slice(1).map(word)]);
      else if (script && !FILE_READS.test(sub))
        ctx.add('unread-script', `${key}: file(${sub} ...) changes files in a way the gate does not judge`);
    } else if (name === 'include' || (name === 'add_subdirectory' && !script)) {
      const target = args[0] ?? '';
      const project = name === 'add_subdirectory';
      // include(NAME) without a path is one of cmake's own modules.
      if (!project && !/[/.]/.test(target)) continue;
      if (/\$(ENV)?\{/.test(target))
        ctx.add('unread-script', `${key}: ${name}(${target}) names a file known only when cmake runs`);
      else {
        const file = joinKey(dir, project ? `${target}/CMakeLists.txt` : target);
        ctx.loads(file, project ? 'cmake-project' : language, { file, roots: [] });
      }
    } else if (name === 'cmake_language') {
      if (/^(EVAL|CALL|DEFER)$/i.test(args[0] ?? ''))
        ctx.add('unread-script', `${key}: cmake_language(${args[0]}) runs cmake code the gate cannot follow`);
    } else if (INERT.test(name) || defined.has(name) || (!script && DESCRIBES.test(name))) continue;
    else if (script) ctx.add('unread-script', `${key}: ${name}() is not a cmake command the gate judges`);
  }
}

/** Files cmake loads as code while configuring: -C cache scripts, toolchain files, project includes. */
const CODE_DEFINES =
  /^(CMAKE_TOOLCHAIN_FILE|CMAKE_PROJECT_INCLUDE(_BEFORE)?|CMAKE_PROJECT_\w+_INCLUDE(_BEFORE)?|CMAKE_PROJECT_TOP_LEVEL_INCLUDES|CMAKE_USER_MAKE_RULES_OVERRIDE\w*)(:\w+)?=(.*)$/;

/** The cmake command line: -P, -E, --build/--install/--open, or configuring a project. */
export function cmakeCommand(cmd: Argv, ctx: CheckContext): void {
  const args = cmd.args;
  const e = args.findIndex((a) => a.text === '-E');
  if (e >= 0) return cmakeTool(args.slice(e + 1), ctx);
  const p = args.findIndex((a) => a.text === '-P');
  if (p >= 0) {
    if (args[p + 1]) ctx.runsFile(args[p + 1]!, 'cmake');
    return;
  }
  // --build runs the generated build system, --install copies, --open an IDE, --help/--version/--system-information print.
  if (args.some((a) => /^--(build|install|open|help|version|system-information|find-package)\b/.test(a.text))) return;
  if (args.some((a) => /^-(h|H|version|\?)$/.test(a.text))) return;
  const VALUE = ['-S', '-B', '-G', '-T', '-A', '-C', '-D', '-U', '-W', '--preset', '--toolchain', '--install-prefix'];
  let source: Word | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const w = args[i]!;
    const t = w.text;
    const opt = VALUE.find((o) => t === o || t.startsWith(o.length === 2 ? o : `${o}=`));
    if (!opt) {
      if (!t.startsWith('-') && source === undefined) source = w;
      continue;
    }
    const value = t === opt ? args[(i += 1)] : { ...w, text: t.slice(opt.length === 2 ? 2 : opt.length + 1) };
    if (!value) continue;
    if (opt === '-S') source = value;
    else if (opt === '-C' || opt === '--toolchain') ctx.runsFile(value, 'cmake');
    else if (opt === '-D') {
      const m = CODE_DEFINES.exec(value.text);
      if (m) ctx.runsFile({ ...value, text: m.at(-1)! }, 'cmake');
    }
  }
  const dir = source?.text ?? '.';
  if (source?.dynamic)
    return ctx.add('unread-script', `cmake configures a project in a directory known only at run time: ${dir}`);
  const lists = dir === '.' ? 'CMakeLists.txt' : `${dir.replace(/\/$/, '')}/CMakeLists.txt`;
  ctx.runsFile(literal(lists), 'cmake-project', true);
}

/**
 * The ctest command line: `-S`/`-SP`/`-SR`/`--script FILE[,ARGS]` runs FILE as a cmake script (judged like `cmake
 * -P`); `--build-and-test SRC BUILD` configures SRC as cmake does and runs its `--test-command CMD ARGS...`.
 */
export function ctestCommand(cmd: Argv, ctx: CheckContext): void {
  const args = cmd.args;
  for (let i = 0; i < args.length; i += 1) {
    const t = args[i]!.text;
    const script = /^(-S[PR]?|--script(-new-process)?)(=(.*))?$/.exec(t);
    const value = script ? (script[4] !== undefined ? { ...args[i]!, text: script[4] } : args[i + 1]) : undefined;
    if (script && value) ctx.runsFile({ ...value, text: value.text.replace(/,[^/]*$/, '') }, 'cmake');
    if (t === '--build-and-test' && args[i + 1]) {
      const src = args[i + 1]!;
      if (src.dynamic) ctx.add('unread-script', `ctest --build-and-test configures a project known only at run time`);
      else ctx.runsFile(literal(`${src.text.replace(/\/$/, '')}/CMakeLists.txt`), 'cmake-project', true);
    }
    if (t === '--test-command' && args[i + 1]) return ctx.argv(args.slice(i + 1));
  }
}
