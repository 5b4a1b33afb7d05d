import { describe, expect, it } from 'vitest';
import { readSmartAnswer, smartPrompt } from './smart.js';

describe('smart approval', () => {
  it('reads the first word, and escalates anything else', () => {
    expect(readSmartAnswer('APPROVE', 'm').answer).toBe('APPROVE');
    expect(readSmartAnswer('**deny** - it deletes /srv', 'm').answer).toBe('DENY');
    expect(readSmartAnswer('Escalate.', 'm').answer).toBe('ESCALATE');
    expect(readSmartAnswer('I think this is fine', 'm').answer).toBe('ESCALATE');
    expect(readSmartAnswer('', 'm')).toEqual({ answer: 'ESCALATE', reply: '(empty reply)', model: 'm' });
    expect(readSmartAnswer(null, 'm').answer).toBe('ESCALATE');
  });

  it('puts the command and every finding in the prompt', () => {
    const [system, user] = smartPrompt('git push -f', [
      { rule: 'git-force-push', tier: 'dangerous', description: 'rewrites history' },
    ]);
    expect(system!.content).toContain('APPROVE, DENY or ESCALATE');
    expect(user!.content).toContain('git push -f');
    expect(user!.content).toContain('[git-force-push] rewrites history');
  });
});
