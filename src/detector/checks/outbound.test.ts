// Acting towards other people (src/detector/checks/outbound.ts): messages, public comments and payments ask; reads,
// local webhooks and queues between programs stay ordinary.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['printf "build broke\\n" | mailx -s CI team@example.org', 'send-message'],
  ['sendmail -t < announcement.eml', 'send-message'],
  ['msmtp ops@example.org < note.txt', 'send-message'],
  ['http POST https://hooks.slack.com/services/T1/B2/c3 text=hello', 'send-message'],
  [
    'curl -d \'{"content":"hi"}\' -H "Content-Type: application/json" https://discordapp.com/api/webhooks/1/x',
    'send-message',
  ],
  ['curl -s -X POST "https://api.telegram.org/bot$BOT_TOKEN/sendMessage" -d chat_id=1 -d text=hi', 'send-message'],
  [
    'curl --user "api:$MAILGUN_API_KEY" https://api.mailgun.net/v3/mg.example.org/messages -F to=a@example.org',
    'send-message',
  ],
  ['curl -X POST https://acme.webhook.office.com/webhookb2/abc -d \'{"text":"x"}\'', 'send-message'],
  [
    'aws sesv2 send-email --from-email-address a@example.org --destination ToAddresses=b@example.org --content file://m.json',
    'send-message',
  ],
  ['aws sns publish --phone-number +15550000000 --message "code 1234"', 'send-message'],
  ['twilio api:core:messages:create --to +15550000000 --from +15551111111 --body hi', 'send-message'],
  ['glab mr note 7 -m "LGTM"', 'send-message'],
  ['gh pr comment 55 --repo other/project --body "+1"', 'send-message'],
  ['stripe payouts create --amount 1000 --currency usd', 'payment'],
  ['stripe post /v1/refunds -d charge=ch_1', 'payment'],
  [
    'curl -X POST https://api-m.paypal.com/v2/payments/captures/abc/refund -H "Authorization: Bearer $PAYPAL_TOKEN"',
    'payment',
  ],
  ['gh pr merge 9 --admin --merge', 'access-grant'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'curl -s https://api.stripe.com/v1/balance -u "$STRIPE_SECRET_KEY:"',
  'stripe logs tail',
  'stripe trigger checkout.session.completed',
  'curl -X POST http://localhost:3000/webhooks/slack -d @fixtures/slack-event.json',
  'curl -s https://slack.com/api/conversations.list -H "Authorization: Bearer $SLACK_BOT_TOKEN"',
  'aws sqs send-message --queue-url https://sqs.us-east-1.amazonaws.com/1/jobs --message-body ping',
  'aws ses get-send-quota',
  'gh pr comment --help',
  'gh pr view 42 --comments',
  'gh pr list --state open',
  'gh pr checks 12 --watch',
  'mail -f ~/mbox',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
