// The `vision_analyze` tool: a question about an image (a file of the task or a URL), answered by the configured model
// when it takes images (an OpenAI-style image_url part; a local file goes as a base64 data URL). Worker-only.
import { extname } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { LOCAL_PREFIX } from '../models/types.js';
import { isOpenAIConfigured, openAISettingsFromEnv } from '../models/openai-provider.js';
import { registry } from '../registry/index.js';
import type { ToolContext } from '../registry/types.js';
import { toolError } from '../common/errors.js';
import { readTaskFile, refusalMessage } from '../files/task-files.js';

const MAX_BYTES = 20 * 1024 * 1024;
const TIMEOUT_SECONDS = 120;
const TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/** TETHER_VISION_MODEL, else the worker's TETHER_MODEL, else gpt-4o-mini. */
function visionModel(env = process.env): string {
  return env.TETHER_VISION_MODEL?.trim() || env.TETHER_MODEL?.trim() || 'gpt-4o-mini';
}

/** Why the model cannot look at images, or undefined when it may. */
function unavailable(model: string): string | undefined {
  if (model.startsWith(LOCAL_PREFIX)) {
    return `the configured model ${model} (a local model, text only) takes no images: set TETHER_VISION_MODEL to one that does, on an OpenAI-compatible server`;
  }
  if (!isOpenAIConfigured(openAISettingsFromEnv()))
    return 'no OpenAI-compatible model is configured (OPENAI_API_KEY or OPENAI_BASE_URL)';
  return undefined;
}

/** The image as the model gets it: a URL as it is, a task file as a data URL. */
async function imageUrl(image: string, ctx: ToolContext): Promise<string> {
  if (/^https?:\/\//i.test(image) || image.startsWith('data:image/')) return image;
  const type = TYPES[extname(image).toLowerCase()];
  if (!type) throw new Error(`${image}: not an image tether sends (${Object.keys(TYPES).join(', ')})`);
  let data: Buffer;
  try {
    data = await readTaskFile(ctx, image, MAX_BYTES);
  } catch (err) {
    const refused = refusalMessage(err);
    if (refused === undefined) throw err;
    throw new Error(refused.replace(/files over \d+ bytes are not read/, `at most ${MAX_BYTES} are sent`));
  }
  return `data:${type};base64,${data.toString('base64')}`;
}

registry.register({
  name: 'vision_analyze',
  toolset: 'vision',
  emoji: '👁️',
  description:
    'Answer a question about an image: a file in the working directory (png, jpeg, gif, webp) or an http(s) URL.',
  schema: z.object({
    image: z.string().min(1).describe('Path of an image file, relative to the working directory, or an http(s) URL'),
    question: z.string().min(1).max(4_000).describe('What to find out about the image'),
  }),
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  timeoutSeconds: TIMEOUT_SECONDS + 10,
  handler: async ({ image, question }, ctx) => {
    const model = visionModel();
    const why = unavailable(model);
    if (why) return toolError(`vision_analyze is unavailable: ${why}`);
    let url: string;
    try {
      url = await imageUrl(image, ctx);
    } catch (err) {
      return toolError((err as Error).message);
    }
    const settings = openAISettingsFromEnv();
    const client = new OpenAI({
      baseURL: settings.baseURL,
      apiKey: settings.apiKey ?? 'not-needed',
      timeout: TIMEOUT_SECONDS * 1000,
      maxRetries: 1,
    });
    try {
      const reply = await client.chat.completions.create(
        {
          model,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: question },
                { type: 'image_url', image_url: { url } },
              ],
            },
          ],
        },
        { signal: ctx.signal },
      );
      return JSON.stringify({ answer: reply.choices[0]?.message.content ?? '', model });
    } catch (err) {
      // A model that takes no images usually answers 400 saying so: the model sees why.
      if (err instanceof APIError)
        return toolError(
          `vision_analyze: the model ${model} refused the image (HTTP ${err.status ?? '?'}): ${err.message}`,
        );
      throw err;
    }
  },
});
