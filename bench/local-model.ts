// Benchmark (not a test): a local model's load time, speed and memory. Run: npm run bench:local-model [-- <id>]
import { getLlama, LlamaChat, LlamaLogLevel } from 'node-llama-cpp';
import { LOCAL_MODEL_NAME, localModelSettingsFor } from '../src/models/local-model.js';
import { fmt, machine } from './stats.js';

const name = process.argv[2] ? `local:${process.argv[2].replace(/^local:/, '')}` : LOCAL_MODEL_NAME;
const settings = localModelSettingsFor(name);
if (!settings) {
  console.error(`bench:local-model: ${name} is not installed: run 'npx tether model install ${name.slice(6)}'`);
  process.exit(1);
}
const mib = (bytes: number): string => `${fmt(bytes / 1024 / 1024, 0)} MiB`;
const rss0 = process.memoryUsage().rss;
const t0 = performance.now();
const llama = await getLlama({ gpu: false, build: 'never', progressLogs: false, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: settings.modelPath });
const context = await model.createContext({ contextSize: settings.contextSize, threads: settings.threads });
const loadMs = performance.now() - t0;
const rssLoaded = process.memoryUsage().rss;

const prompt = 'Write a short paragraph about why durable workflows help long-running AI agents.';
const runs: { prompt: number; tokens: number; ms: number }[] = [];
for (let i = 0; i < 3; i += 1) {
  const chat = new LlamaChat({ contextSequence: context.getSequence() });
  let tokens = 0;
  let firstTokenAt = 0;
  const start = performance.now();
  await chat.generateResponse(
    [
      { type: 'user', text: prompt },
      { type: 'model', response: [] },
    ],
    {
      maxTokens: 128,
      temperature: 0,
      onToken: (t) => {
        if (tokens === 0) firstTokenAt = performance.now();
        tokens += t.length;
      },
    },
  );
  const end = performance.now();
  runs.push({ prompt: firstTokenAt - start, tokens, ms: end - firstTokenAt });
  chat.dispose({ disposeSequence: true });
}
const tokens = runs.reduce((a, r) => a + r.tokens, 0);
const ms = runs.reduce((a, r) => a + r.ms, 0);
console.log(`bench:local-model on ${machine()}, ${settings.threads} thread(s)`);
console.log(`model: ${name} (${settings.modelPath})`);
console.log(`load (runtime + weights + ${settings.contextSize}-token context): ${fmt(loadMs, 0)} ms`);
console.log(
  `time to first token (prompt evaluation), median of 3: ${fmt([...runs.map((r) => r.prompt)].sort((a, b) => a - b)[1]!, 0)} ms`,
);
console.log(
  `generation: ${tokens} tokens in ${fmt(ms / 1000, 2)} s = ${fmt((tokens - runs.length) / (ms / 1000), 1)} tokens/s`,
);
console.log(
  `memory (RSS): ${mib(rss0)} before, ${mib(rssLoaded)} loaded, ${mib(process.memoryUsage().rss)} after generating`,
);
await context.dispose();
await model.dispose();
