// Loads TETHER_HOME/config.yaml; a wrong setting fails fast with a message naming it. Worker-only.
import { existsSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { z } from 'zod';
import { TetherError } from '../common/errors.js';
import { configPath } from './home.js';
import { translateHermes } from './hermes-keys.js';
import { problemLine, problemsOf, type ConfigProblem } from './config-check.js';
import { allowlistProblem } from '../common/allowlist.js';
import { parseMetricsAddress } from './metrics-address.js';
import { badPattern } from './checkpoint-exclude.js';
import { CONTROL_PLANE_VARIABLES, PASSTHROUGH_ENTRY } from '../common/environment-variables.js';

/** One MCP server: `command` (stdio) or `url` (streamable HTTP, or SSE for older servers). */
export const McpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    transport: z.enum(['stdio', 'http', 'sse']).optional(),
    enabled: z.boolean().default(true),
    /** Seconds a call (and connecting) may take before it is cancelled. */
    timeout: z.number().positive().default(60),
    include: z.array(z.string()).optional(),
    exclude: z.array(z.string()).optional(),
    /**
     * untrusted (the default): every tool without `readOnlyHint: true` asks before it runs; trusted (Hermes: full):
     * its tools run as they are.
     */
    trust: z.enum(['untrusted', 'trusted', 'full']).default('untrusted'),
  })
  .refine((s) => Boolean(s.command) !== Boolean(s.url), {
    message: 'give exactly one of command (stdio) and url (HTTP)',
  });

export type McpServerConfig = z.infer<typeof McpServerSchema>;

/** The hard ceiling of terminal.max_timeout, in seconds. */
export const MAX_FOREGROUND_TIMEOUT = 3600;

const DURATION_FORMATS = 'seconds as a number (3600) or a number with s, m, h or d (90s, 30m, 1h, 2d)';

/** Seconds, as a number or a duration such as "90s", "30m", "1h", "2d"; anything else is refused naming the formats. */
const Duration = z.unknown().transform((v, ctx): number => {
  if (typeof v === 'number' && v > 0 && Number.isFinite(v)) return v;
  const m = typeof v === 'string' ? /^(\d+(?:\.\d+)?)\s*(s|m|h|d)$/.exec(v.trim()) : null;
  if (m && parseFloat(m[1]!) > 0)
    return parseFloat(m[1]!) * { s: 1, m: 60, h: 3600, d: 86400 }[m[2] as 's' | 'm' | 'h' | 'd'];
  ctx.addIssue({ code: 'custom', message: `${JSON.stringify(v)} is not a duration: give ${DURATION_FORMATS}` });
  return z.NEVER;
});

const ApprovalsSchema = z
  .strictObject({
    /** manual: ask a person; smart: an auxiliary model call first; off: run without asking (hardline still refused). */
    mode: z.enum(['manual', 'smart', 'off']).default('manual'),
    /** How long a pending approval waits before it counts as denied. */
    timeout: Duration.default(3600),
    /** Model for smart approval (default: the run's model). */
    smart_model: z.string().min(1).optional(),
    /** Pending approvals are POSTed here as JSON (signed with `secret` when set). */
    webhook_url: z.url().optional(),
    /** Shared secret: signs webhook bodies and checks decisions sent to `tether serve` (HMAC-SHA256). */
    secret: z.string().min(16, 'use at least 16 characters').optional(),
    /** Where `tether serve` listens. */
    serve: z
      .strictObject({ host: z.string().default('127.0.0.1'), port: z.number().int().min(0).max(65535).default(8787) })
      .prefault({}),
  })
  .prefault({});

export type ApprovalsConfig = z.infer<typeof ApprovalsSchema>;

/**
 * Where and how `terminal` runs commands. Each backend's own section (`terminal.docker`, `terminal.ssh`, ...) is
 * checked by that backend's schema when the worker starts (see src/environments/backends.ts).
 */
const terminalShape = {
  /** local, docker, ssh, singularity, modal, daytona, vercel_sandbox, or a plugin's backend. */
  backend: z
    .string()
    .regex(/^[a-z][a-z0-9_-]*$/, 'a backend name such as local, docker or ssh')
    .default('local'),
  /** An environment unused for this long is closed (and made anew by the next command). */
  lifetime_seconds: z.number().positive().default(300),
  /** Seconds a command may run when the call gives no timeout. */
  default_timeout: z.number().int().positive().default(180),
  /** The most a foreground command may ask for; 3600 is the ceiling (tool calls' activity timeout is built on it). */
  max_timeout: z.number().int().positive().max(MAX_FOREGROUND_TIMEOUT).default(600),
  /** Characters of output the model sees (40% head, 60% tail of longer output). */
  output_chars: z.number().int().min(1000).default(50_000),
  /** Variables every command gets. */
  env: z.record(z.string(), z.string()).default({}),
  /**
   * The worker's own variables that commands may see, by name (`AWS_PROFILE`) or prefix (`AWS_*`): nothing else of
   * the worker's environment reaches a command but PATH, HOME, USER, LOGNAME, SHELL, LANG, LANGUAGE, LC_*, TERM, TZ
   * and TMPDIR (src/environments/command-env.ts).
   */
  env_passthrough: z
    .array(
      z
        .string()
        .regex(PASSTHROUGH_ENTRY, 'a variable name, or a name prefix followed by * (AWS_*)')
        .refine(
          (n) =>
            !CONTROL_PLANE_VARIABLES.some((c) => c.startsWith(n.replace(/\*$/, '')) && (n.endsWith('*') || c === n)),
          {
            message:
              "tether's Temporal credentials are never passed to commands: with them a command could approve its own commands",
          },
        ),
    )
    .default([]),
};

/** The keys of `terminal` itself; any other key must name a backend (its section, checked when the worker starts). */
export const TERMINAL_KEYS: readonly string[] = Object.keys(terminalShape);

const TerminalSchema = z
  .looseObject(terminalShape)
  .superRefine((t, ctx) => {
    if (t.default_timeout > t.max_timeout) {
      ctx.addIssue({
        code: 'custom',
        path: ['default_timeout'],
        message: `${t.default_timeout} is larger than terminal.max_timeout (${t.max_timeout}): every command would be refused; lower default_timeout or raise max_timeout`,
      });
    }
  })
  .prefault({});

export type TerminalConfig = z.infer<typeof TerminalSchema>;

/** web_search and web_extract. */
const WebSchema = z
  .strictObject({
    /**
     * No longer read: web tools go through the egress policy (terminal.local.sandbox.egress), where a private host is
     * reached once allowed and this machine never. Accepted so that an older config.yaml still starts (with a warning).
     */
    allow_private: z.boolean().default(false),
    /** Seconds one fetch may take (connect, redirects and body). */
    timeout_seconds: z.number().positive().default(20),
    /** A page larger than this many bytes is not read past it. */
    max_bytes: z.number().int().positive().default(5_000_000),
    /** Characters of text returned per page. */
    max_chars: z.number().int().min(1000).default(20_000),
    user_agent: z.string().min(1).default('tether/0.1 (an AI agent runner)'),
    /** The search provider; default: the first whose key is set (SERPAPI_API_KEY, BRAVE_API_KEY, TAVILY_API_KEY). */
    search_provider: z.enum(['serpapi', 'brave', 'tavily']).optional(),
  })
  .prefault({});

/** The browser tools (playwright-core driving Chromium). */
const BrowserSchema = z
  .strictObject({
    /** Chromium or Chrome; default: the usual paths (/usr/bin/chromium, ...). */
    executable_path: z.string().min(1).optional(),
    headless: z.boolean().default(true),
    /** A task's browser context unused this long is closed. */
    idle_seconds: z.number().positive().default(300),
    /** No longer read, as web.allow_private: the browser goes through the egress policy. */
    allow_private: z.boolean().default(false),
  })
  .prefault({});

/** execute_code. */
const CodeExecutionSchema = z
  .strictObject({
    /** Seconds a program may run. */
    timeout_seconds: z.number().int().positive().default(300),
    /** Characters of the program's output returned. */
    max_output_chars: z.number().int().min(1000).default(50_000),
    /** Tool calls one program may make. */
    max_tool_calls: z.number().int().positive().default(50),
    python: z.string().min(1).default('python3'),
    node: z.string().min(1).default('node'),
  })
  .prefault({});

/** image_generate (fal). */
const ImageGenSchema = z
  .strictObject({
    model: z.string().min(1).default('fal-ai/flux/schnell'),
  })
  .prefault({});

/** Metrics endpoint and model prices (docs/observability.md). Traces are configured by the standard OTEL_* variables. */
const ObservabilitySchema = z
  .strictObject({
    /** Where `tether worker` serves Prometheus metrics, HOST:PORT with an IP address (--metrics overrides it). */
    metrics: z
      .string()
      .transform((v, ctx): string => {
        const parsed = parseMetricsAddress(v);
        if ('address' in parsed) return parsed.address;
        ctx.addIssue({ code: 'custom', message: parsed.problem });
        return z.NEVER;
      })
      .optional(),
    /** US dollars per million tokens, by model name (as given to --model): runs then show what they cost. */
    prices: z
      .record(
        z.string().min(1),
        z.strictObject({ input: z.number().nonnegative().finite(), output: z.number().nonnegative().finite() }),
      )
      .default({}),
  })
  .prefault({});
/** Bytes, as a number or with a binary unit: 64m, 512k, 1g (also 64MB, 64MiB). */
const Bytes = z.unknown().transform((v, ctx): number => {
  if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  const m = typeof v === 'string' ? /^(\d+(?:\.\d+)?)\s*([kmg])(?:i?b)?$/i.exec(v.trim()) : null;
  if (m && parseFloat(m[1]!) > 0)
    return Math.floor(parseFloat(m[1]!) * 1024 ** { k: 1, m: 2, g: 3 }[m[2]!.toLowerCase() as 'k' | 'm' | 'g']);
  ctx.addIssue({
    code: 'custom',
    message: `${JSON.stringify(v)} is not a size: give bytes (1048576) or 512k, 64m, 1g`,
  });
  return z.NEVER;
});

const CHECKPOINTS_SHAPE = 'false, true, or a mapping with enabled, exclude, max_file_bytes, max_files and keep';

/** Checkpoints of the task directory before calls that may change it (docs/checkpoints.md). */
const CheckpointsObject = z.strictObject(
  {
    /** Off: no checkpoints are taken (those taken before stay, and can still be restored). */
    enabled: z.boolean().default(true),
    /** .gitignore-style patterns left out, after the defaults (`!pattern` takes one of those back). */
    exclude: z
      .array(z.string())
      .default([])
      .superRefine((patterns, ctx) => {
        const bad = badPattern(patterns);
        if (bad) ctx.addIssue({ code: 'custom', message: bad });
      }),
    /** Larger files are left out of checkpoints (and named in them). */
    max_file_bytes: Bytes.default(64 * 1024 * 1024),
    /** A task directory with more files and directories than this is not checkpointed (and the run says so). */
    max_files: z.number().int().positive().default(100_000),
    /** Pruning: each run keeps its newest `count`; any checkpoint older than `age` goes. */
    keep: z
      .strictObject({ count: z.number().int().positive().default(50), age: Duration.default(14 * 86400) })
      .prefault({}),
  },
  { error: (iss) => (iss.code === 'invalid_type' ? CHECKPOINTS_SHAPE : undefined) },
);

/** `checkpoints: false` / `true` (or off / on) are short for `{enabled: false}` / the defaults. */
const CheckpointsSchema = z.preprocess((v) => {
  if (v === undefined || v === true || v === null || v === 'on') return {};
  if (v === false || v === 'off') return { enabled: false };
  return v;
}, CheckpointsObject);

export type CheckpointSettings = z.infer<typeof CheckpointsObject>;

/** How one worker process shares itself out; read when it starts. */
const WorkerSchema = z
  .strictObject({
    /** Model calls one worker runs at once, in slots of their own: a flood of tool calls cannot hold them up. */
    model_calls: z.number().int().positive().max(1000).default(32),
    /**
     * Tool calls one worker runs at once (shell commands, browsers, checkpoints), on the shared task queue and again
     * on its own queue (calls for environments it holds): a flood of model calls cannot hold them up either.
     */
    tool_calls: z.number().int().positive().max(1000).default(32),
    /**
     * A worker whose event loop answers nothing for this long is taken for wedged: its calls stop being heartbeated
     * and are taken over by another worker. A merely busy worker keeps its calls however slow it gets.
     */
    stall_seconds: Duration.default(30),
  })
  .prefault({});

/** How tether uses the Temporal server beyond running workflows (docs/cluster.md). */
const TemporalSchema = z
  .strictObject({
    /** Payload encryption: every payload a client or worker writes is sealed with AES-256-GCM (docs/encryption.md). */
    encryption: z
      .strictObject({
        /** A file of 32-byte keys in base64, one a line: the first encrypts, every one decrypts. */
        key_file: z.string().min(1),
      })
      .optional(),
  })
  .prefault({});

/** Memory, transcripts and session search (docs/long-runs.md). */
const StoreSchema = z
  .strictObject({
    /**
     * Share memory and transcripts with every worker of the task queue through the Temporal server (default). Off:
     * each worker keeps its own in TETHER_HOME/tether.sqlite, as before.
     */
    shared: z.boolean().default(true),
  })
  .prefault({});

/** Every section is checked strictly: a misspelt or unknown key is named, never silently ignored. */
export const ConfigSchema = z.strictObject({
  /**
   * The model runs use unless `--model` or TETHER_MODEL names one: any name the endpoint knows, or `local:<id>`.
   * Unset: gpt-4o-mini with OPENAI_API_KEY or OPENAI_BASE_URL, else the local default (docs/local-model.md).
   */
  model: z.string().trim().min(1, 'give a model name (gpt-4o-mini, local:qwen2.5-coder-1.5b, ...)').optional(),
  terminal: TerminalSchema,
  web: WebSchema,
  browser: BrowserSchema,
  code_execution: CodeExecutionSchema,
  image_gen: ImageGenSchema,
  files: z
    .strictObject({
      /** Let file tools read and write outside the task's working directory. */
      allow_outside_cwd: z.boolean().default(false),
    })
    .prefault({}),
  mcp_servers: z
    .record(z.string().regex(/^[a-zA-Z0-9_-]+$/, 'server names use letters, digits, _ and -'), McpServerSchema)
    .default({}),
  /** npm packages that are tether plugins (besides TETHER_HOME/plugins and .tether/plugins). */
  plugins: z.array(z.string().min(1)).default([]),
  approvals: ApprovalsSchema,
  checkpoints: CheckpointsSchema,
  /**
   * Commands that never ask: exact commands, rule ids (see `tether approval rules`), glob patterns, or an exact
   * command in one directory (`{command, cwd}`, what an `always` approval writes). Read when the worker starts.
   */
  command_allowlist: z
    .array(
      z
        .union([z.string(), z.object({ command: z.string(), cwd: z.string().optional() }).loose()])
        .superRefine((entry, ctx) => {
          const problem = allowlistProblem(entry);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .default([]),
  observability: ObservabilitySchema,
  worker: WorkerSchema,
  temporal: TemporalSchema,
  store: StoreSchema,
});

export type TetherConfig = z.infer<typeof ConfigSchema>;

export { configPath };

export function loadConfig(path = configPath()): TetherConfig {
  let raw: unknown = {};
  if (existsSync(path)) {
    try {
      raw = parse(readFileSync(path, 'utf8')) ?? {};
    } catch (err) {
      throw new TetherError('Config.Invalid', `${path}: not valid YAML: ${(err as Error).message}`, false);
    }
  }
  return parseConfig(raw, path);
}

const noticed = new Set<string>();

/** A Hermes key read as tether's: said once per process, on standard error (never standard output). */
function noticeOnce(line: string): void {
  if (noticed.has(line)) return;
  noticed.add(line);
  process.stderr.write(`tether: ${line}\n`);
}

/**
 * Checks a configuration object; `source` names it in errors. `parseConfig({})` gives the defaults. Hermes's keys
 * are mapped first (each with a notice) or refused naming the tether setting.
 */
export function parseConfig(
  raw: unknown,
  source = 'config',
  notice: (line: string) => void = noticeOnce,
): TetherConfig {
  const checked = checkConfig(raw);
  if (!checked.config)
    throw new TetherError('Config.Invalid', `${source}: ${checked.problems.map(problemLine).join('; ')}`, false);
  for (const n of checked.notices) notice(`${source}: ${n}`);
  return checked.config;
}

/**
 * Every problem of a parsed config.yaml at once (Hermes keys refused, unknown keys with the key meant, wrong values),
 * and the configuration when there are none. Notices: Hermes keys read as tether's.
 */
export function checkConfig(raw: unknown): { config?: TetherConfig; problems: ConfigProblem[]; notices: string[] } {
  const hermes = translateHermes(raw);
  const problems: ConfigProblem[] = hermes.refused.map((r) => {
    const at = r.indexOf(' ');
    return { path: r.slice(0, at).replace(/:$/, ''), message: r.slice(at + 1), line: r };
  });
  const parsed = ConfigSchema.safeParse(hermes.value);
  if (!parsed.success) problems.push(...problemsOf(parsed.error, ConfigSchema));
  return problems.length > 0 || !parsed.success
    ? { problems, notices: hermes.notices }
    : { config: parsed.data, problems, notices: hermes.notices };
}

/** Reads and checks a config file: every problem at once; a file that is not YAML is one problem with its line. */
export function checkConfigFile(path = configPath()): {
  exists: boolean;
  raw?: unknown;
  config?: TetherConfig;
  problems: ConfigProblem[];
  notices: string[];
} {
  if (!existsSync(path)) return { exists: false, ...checkConfig({}) };
  let raw: unknown;
  try {
    raw = parse(readFileSync(path, 'utf8')) ?? {};
  } catch (err) {
    return {
      exists: true,
      problems: [{ path: '(file)', message: `not valid YAML: ${(err as Error).message}` }],
      notices: [],
    };
  }
  return { exists: true, raw, ...checkConfig(raw) };
}
