// A conversation's turns as one update that can start the run (update-with-start): a prompt is taken exactly once,
// whether it started the run or reached it while it ran, and its sender learns which answer will be its reply.
// Workflow-safe.
import { defineUpdate, setHandler } from '@temporalio/workflow';
import { CONVERSATION_TURN_UPDATE } from '../common/workflow-messages.js';

export interface ConversationTurn {
  text: string;
  /** The sender's id for this turn: a turn sent twice (a retried request) is taken once. */
  turnId: string;
}

/** `answers`: the run's answers so far; the reply to this turn is the first answer after them. */
export interface TurnAccepted {
  answers: number;
  /** This turn started the run (its text is the task). */
  started: boolean;
}

export const conversationTurnUpdate = defineUpdate<TurnAccepted, [ConversationTurn]>(CONVERSATION_TURN_UPDATE);

const MAX_TURN_CHARS = 20_000;
/** Turn ids remembered for deduplication (a retried send arrives within seconds). */
const KEEP_TURN_IDS = 100;

function problemWith(t: ConversationTurn | undefined): string | undefined {
  if (!t || typeof t !== 'object') return 'a conversation turn is an object with text and turnId';
  if (typeof t.text !== 'string' || t.text.trim() === '' || t.text.length > MAX_TURN_CHARS)
    return `text must be a non-empty string of at most ${MAX_TURN_CHARS} characters`;
  if (typeof t.turnId !== 'string' || t.turnId === '' || t.turnId.length > 100) return 'turnId must be a short string';
  return undefined;
}

/**
 * Handles the update for a conversation run. `startedBy` is the turn id the run was started with (its task);
 * `take` queues a later turn's text for the next model call; `answers` reads the count of answers given.
 */
export function handleConversationTurns(
  startedBy: string | undefined,
  take: (text: string) => void,
  answers: () => number,
): void {
  // Each turn id with the answer count it was taken at: a duplicate gets the same answer as the first.
  const seen = new Map<string, number>(startedBy ? [[startedBy, 0]] : []);
  setHandler(
    conversationTurnUpdate,
    (t) => {
      const started = t.turnId === startedBy;
      let at = seen.get(t.turnId);
      if (at === undefined) {
        at = answers();
        seen.set(t.turnId, at);
        if (seen.size > KEEP_TURN_IDS) seen.delete(seen.keys().next().value!);
        take(t.text);
      }
      return { answers: at, started };
    },
    {
      validator: (t) => {
        const problem = problemWith(t);
        if (problem) throw new Error(problem);
      },
    },
  );
}
