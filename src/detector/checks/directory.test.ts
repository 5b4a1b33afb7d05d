// Directory accounts (directory.ts), root policies in secret stores (grants.ts), GPU fleets (miner.ts), every stack
// deployed without review and pushes to deploy remotes (production.ts, data-targets.ts); their ordinary look-alikes.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ["kadmin.local -q 'cpw -randkey host/db1.acme.internal'", 'account-change'],
  ['ldapadd -x -H ldaps://dir.acme.io -D cn=admin,dc=acme -w "$PW" -f newuser.ldif', 'account-change'],
  [
    'ldappasswd -x -H ldap://dir.acme.io -D cn=admin,dc=acme -w "$PW" -s hunter2 uid=bob,ou=people,dc=acme',
    'account-change',
  ],
  ['ipa group-add-member admins --users=contractor', 'account-change'],
  ['samba-tool user create backup Passw0rd!', 'account-change'],
  ['vault token create -policy=root -period=24h', 'access-grant'],
  ['vault write auth/approle/role/ci token_policies=root', 'access-grant'],
  [
    'aws ec2 request-spot-instances --instance-count 8 --launch-specification InstanceType=x --instance-type g5.48xlarge',
    'gpu-fleet',
  ],
  ['az vm create -g rg -n miner1 --image Ubuntu2204 --size Standard_NC24ads_A100_v4', 'gpu-fleet'],
  [
    'gcloud compute instances create w1 --machine-type n1-standard-8 --accelerator=type=nvidia-tesla-t4,count=4',
    'gpu-fleet',
  ],
  ['terragrunt run-all apply --terragrunt-non-interactive -auto-approve', 'production-change'],
  ['git push dokku HEAD:main', 'production-change'],
  ['terraform apply -var region=us-east-1 -var env=production', 'production-change'],
])('%s asks (%s)', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'ldapsearch -x -H ldap://dir.acme.io -b dc=acme "(uid=bob)"',
  "kadmin -q 'listprincs'",
  'ldapmodify -n -x -H ldap://dir.acme.io -f change.ldif',
  'vault token create -policy=ci-read -ttl=1h',
  'vault policy read root',
  'aws ec2 describe-instances --filters Name=instance-type,Values=p4d.24xlarge',
  'gcloud compute instances create dev-1 --machine-type e2-medium',
  'cdk deploy ApiStack --require-approval never',
  'terraform apply -var env=dev -auto-approve',
  'git push origin feature/login',
])('%s stays ordinary', (command) => {
  expect(rules(command)).toEqual([]);
});
