// The `image_generate` tool: text-to-image through fal's queue API (@fal-ai/client), model from image_gen.model. Worker-only.
import { ApiError, createFalClient, ValidationError, type RequestMiddleware } from '@fal-ai/client';
import { z } from 'zod';
import { currentConfig } from '../config/current.js';
import { registry } from '../registry/index.js';
import { toolError } from '../common/errors.js';

const SIZES = ['square_hd', 'square', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'] as const;
const TIMEOUT_SECONDS = 180;

/**
 * FAL_BASE_URL sends the client's requests (queue.fal.run, fal.run) to another origin instead, such as a test
 * double; the client has no base URL setting of its own.
 */
function redirectTo(base: string | undefined): RequestMiddleware | undefined {
  if (!base) return undefined;
  const origin = base.replace(/\/+$/, '');
  return (request) =>
    Promise.resolve({ ...request, url: request.url.replace(/^https:\/\/([a-z]+\.)?fal\.(run|ai)/, origin) });
}

function describeFalError(err: unknown): string {
  if (err instanceof ValidationError) {
    const fields = err.fieldErrors.map((e) => `${e.loc.join('.')}: ${e.msg}`).join('; ');
    return `fal rejected the input: ${fields || err.message}`;
  }
  if (err instanceof ApiError) {
    if (err.status === 401 || err.status === 403) return `fal refused the key (HTTP ${err.status}): check FAL_KEY`;
    if (err.status === 429) return 'rate limited by fal (HTTP 429); wait before generating again';
    return `fal answered HTTP ${err.status}: ${err.message}`;
  }
  return `image generation failed: ${err instanceof Error ? err.message : String(err)}`;
}

interface FalImage {
  url?: unknown;
  width?: unknown;
  height?: unknown;
}

registry.register({
  name: 'image_generate',
  toolset: 'image_gen',
  emoji: '🎨',
  description: 'Generate an image from a text prompt. Returns the URL of the image (hosted by fal) and its size.',
  schema: z.object({
    prompt: z.string().min(1).max(4_000).describe('What the image should show'),
    size: z.enum(SIZES).optional().describe('Aspect of the image (default landscape_4_3)'),
  }),
  requiresEnv: ['FAL_KEY'],
  sideEffects: 'idempotent',
  parallelSafe: true,
  isAsync: true,
  timeoutSeconds: TIMEOUT_SECONDS + 20,
  handler: async ({ prompt, size }, ctx) => {
    const model = currentConfig().image_gen.model;
    const middleware = redirectTo(process.env.FAL_BASE_URL);
    const fal = createFalClient({
      credentials: process.env.FAL_KEY,
      ...(middleware ? { requestMiddleware: middleware } : {}),
    });
    let data: unknown;
    try {
      const result = await fal.subscribe(model, {
        input: { prompt, image_size: size ?? 'landscape_4_3' },
        timeout: TIMEOUT_SECONDS * 1000,
        ...(ctx.signal ? { abortSignal: ctx.signal } : {}),
      });
      data = result.data;
    } catch (err) {
      return toolError(describeFalError(err));
    }
    const images = (data as { images?: FalImage[] } | null)?.images;
    const image = Array.isArray(images) ? images[0] : undefined;
    if (!image || typeof image.url !== 'string') return toolError(`${model} returned no image`);
    return JSON.stringify({
      image_url: image.url,
      ...(typeof image.width === 'number' ? { width: image.width } : {}),
      ...(typeof image.height === 'number' ? { height: image.height } : {}),
      model,
    });
  },
});
