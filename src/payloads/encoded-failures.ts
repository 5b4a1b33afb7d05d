// The failure converter of a worker that encrypts payloads: a failure's message and stack go into an encoded payload
// (sealed by the codec) instead of plain text beside it. Loaded by path (`failureConverterPath`). Worker-only.
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
