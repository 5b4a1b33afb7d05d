// Changes aimed at production (src/detector/checks/production.ts) and release tools (publish.ts): a changing verb
// with a target named production asks; the same change elsewhere, reads of production and scaling stay ordinary.
import { expect, it } from 'vitest';
import { detectorRules } from '../../../test/support/detector-rules.js';

const rules = detectorRules();

it.each([
  ['oc apply -k overlays/production', 'production-change'],
  [
    'kubectl --context=gke_acme_us-east1_prd patch svc web -p \'{"spec":{"type":"LoadBalancer"}}\'',
    'production-change',
  ],
  ['kubectl annotate deploy web -n live-eu kubernetes.io/change-cause=hotfix', 'production-change'],
  ['kubectl rollout undo deploy/web --namespace prod', 'production-change'],
  ['kubectl create configmap x --from-file=cfg -n kube-system', 'production-change'],
  ['helm rollback payments 41 --kube-context prod-us', 'production-change'],
  ['helm install web ./chart -f values-prod.yaml', 'production-change'],
  ['tofu apply -var-file=envs/prod.tfvars', 'production-change'],
  ['terragrunt run-all apply --terragrunt-working-dir live/prod', 'production-change'],
  ['pulumi up --stack acme/production --yes', 'production-change'],
  ['cdk deploy --all --context env=prod --require-approval never', 'production-change'],
  ['ansible-playbook deploy.yml -i hosts/prod', 'production-change'],
  ['gcloud run deploy api --image gcr.io/x/api --project acme-prod --region us-central1', 'production-change'],
  ['gcloud functions deploy hook --project=shop-production', 'production-change'],
  ['fly deploy -a shop-prod', 'production-change'],
  ['aws lambda update-function-code --function-name api --zip-file fileb://f.zip --profile prod', 'production-change'],
  ['netlify deploy --production --dir build', 'production-change'],
  ['vercel deploy --prod', 'production-change'],
  ['argocd app sync web-prod --project production', 'production-change'],
  ['terraform force-unlock 1234-abcd', 'infra-state'],
  ['terraform state push errored.tfstate', 'infra-state'],
  ['kubectl label namespace apps pod-security.kubernetes.io/enforce=privileged', 'security-posture'],
  ['docker build --push -t ghcr.io/acme/api:2 .', 'package-publish'],
  ['npx release-it --ci', 'package-publish'],
  ['goreleaser release', 'package-publish'],
  ['fastlane android playstore', 'package-publish'],
])('asks: %s', (command, rule) => {
  expect(rules(command)).toContain(rule);
});

it.each([
  'kubectl apply -f k8s/ --context kind-dev',
  'kubectl get deploy -n prod -o yaml',
  'kubectl rollout status deploy/web -n prod',
  'kubectl top pods -n production',
  'kubectl scale deploy/web --replicas=4 -n prod',
  'helm upgrade web ./chart -n staging -f values-staging.yaml',
  'helm template web ./chart -f values-prod.yaml',
  'helm diff upgrade web ./chart --kube-context prod',
  'terraform plan -var-file=prod.tfvars',
  'terraform apply -var-file=dev.tfvars',
  'pulumi preview --stack prod',
  'ansible-playbook -i inventories/prod site.yml --check',
  'gcloud run services describe api --project acme-prod',
  'aws cloudformation describe-stacks --stack-name prod-core',
  'netlify deploy --dir=dist',
  'vercel deploy',
  'docker compose -f compose.prod.yml config',
  'kubectl apply -f product-catalog.yaml -n preprod',
  'docker buildx build --load -t web:dev .',
  'goreleaser release --snapshot --clean',
  'fastlane ios tests',
])('ordinary: %s', (command) => {
  expect(rules(command)).toEqual([]);
});
