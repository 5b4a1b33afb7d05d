// The `vision_analyze` tool: a question about an image (a file of the task or a URL), answered by the configured model
// when it takes images. The model gets the image's bytes as a base64 data URL, never a URL to fetch: tether fetches
// an image URL itself, through the run's egress policy, so the run cannot send the provider anywhere. Worker-only.
import { extname } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { z } from 'zod';
import { LOCAL_PREFIX } from '../models/types.js';
import { isOpenAIConfigured, openAISettingsFromEnv } from '../models/openai-provider.js';
import { registry } from '../registry/index.js';
import type { ToolContext } from '../registry/types.js';
import { isTetherError, toolError } from '../common/errors.js';
import { readTaskFile, refusalMessage } from '../files/task-files.js';
import { currentConfig } from '../config/current.js';
import { APPROVAL_WAIT_SECONDS, CallNetwork } from '../tool-egress/call-network.js';
import { fetchPage } from '../web/fetch-page.js';

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
    return `the configured model ${model} (the local demonstration model) takes no images: set TETHER_VISION_MODEL to one that does, on an OpenAI-compatible server`;
  }
  if (!isOpenAIConfigured(openAISettingsFromEnv()))
    return 'no OpenAI-compatible model is configured (OPENAI_API_KEY or OPENAI_BASE_URL)';
  return undefined;
}

/** Media types by file extension: the images tether sends. */
const IMAGE_TYPES = new Set(Object.values(TYPES));
const DATA_URL = /^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]*={0,2}$/;

/** An image URL's bytes, fetched through the run's egress policy (each redirect's host decided too). */
async function fetchedImage(url: string, ctx: ToolContext): Promise<string> {
  const web = currentConfig().web;
  try {
    const image = await fetchPage(url, {
      net: CallNetwork.of(ctx, 'vision_analyze'),
      timeoutMs: web.timeout_seconds * 1000,
      maxBytes: MAX_BYTES,
      userAgent: web.user_agent,
      acceptTypes: IMAGE_TYPES,
      acceptHeader: [...IMAGE_TYPES].join(', '),
      accept: `not an image tether sends (${[...IMAGE_TYPES].join(', ')})`,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
    if (image.truncated) throw new Error(`${url}: the image is larger than ${MAX_BYTES} bytes, the most that is sent`);
    return `data:${image.contentType};base64,${image.body.toString('base64')}`;
  } catch (err) {
    if (isTetherError(err, 'Web.FetchFailed', 'Web.AddressRefused')) throw new Error(err.message);
    throw err;
  }
}

/** The image as the model gets it: always a data URL (a task file read, a URL fetched by tether). */
async function imageUrl(image: string, ctx: ToolContext): Promise<string> {
  if (image.startsWith('data:')) {
    // Bytes as they are; nothing in them is a place to fetch (an SVG could name one: it is not sent).
    if (DATA_URL.test(image)) return image;
    throw new Error(`a data URL is sent only as base64 of ${[...IMAGE_TYPES].join(', ')} (data:image/png;base64,...)`);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(image)) return fetchedImage(image, ctx);
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
    'Answer a question about an image: a file in the working directory (png, jpeg, gif, webp) or an http(s) URL ' +
    "(fetched through the egress policy: a host outside it needs a person's approval).",
  schema: z.object({
    image: z.string().min(1).describe('Path of an image file, relative to the working directory, or an http(s) URL'),
    question: z.string().min(1).max(4_000).describe('What to find out about the image'),
  }),
  sideEffects: 'read-only',
  parallelSafe: true,
  isAsync: true,
  timeoutSeconds: TIMEOUT_SECONDS + 10 + APPROVAL_WAIT_SECONDS,
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
