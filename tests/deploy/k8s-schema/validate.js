// Validates every object of a Kubernetes manifest file against the API's
// JSON schemas (the kubernetes-models package), as an API server would
// before admission: unknown kinds, wrong types and missing required fields
// fail. The Prometheus Operator's ServiceMonitor and PrometheusRule are
// checked against the OpenAPI schemas of the operator's custom resource
// definitions (v0.65.1), compiled by @kubernetes-models/prometheus-operator.
// Usage: node validate.js FILE.yaml...; prints one line per object and
// exits 1 if any is invalid.
'use strict';
const fs = require('fs');
const yaml = require('js-yaml');

const models = {
  'v1/ConfigMap': () => require('kubernetes-models/v1/ConfigMap').ConfigMap,
  'v1/Secret': () => require('kubernetes-models/v1/Secret').Secret,
  'v1/Service': () => require('kubernetes-models/v1/Service').Service,
  'apps/v1/Deployment': () => require('kubernetes-models/apps/v1/Deployment').Deployment,
  'apps/v1/StatefulSet': () => require('kubernetes-models/apps/v1/StatefulSet').StatefulSet,
  'policy/v1/PodDisruptionBudget': () =>
    require('kubernetes-models/policy/v1/PodDisruptionBudget').PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': () =>
    require('kubernetes-models/networking.k8s.io/v1/NetworkPolicy').NetworkPolicy,
  'autoscaling/v2/HorizontalPodAutoscaler': () =>
    require('kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler').HorizontalPodAutoscaler,
  'monitoring.coreos.com/v1/ServiceMonitor': () =>
    require('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor')
      .ServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': () =>
    require('@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule')
      .PrometheusRule,
};

let invalid = 0;
const docs = process.argv.slice(2).flatMap((file) => yaml.loadAll(fs.readFileSync(file, 'utf8')));
for (const doc of docs) {
  if (doc == null) continue;
  const key = `${doc.apiVersion}/${doc.kind}`;
  const name = doc.metadata && doc.metadata.name;
  if (!(key in models)) {
    console.log(`invalid ${key} ${name}: no schema here for this kind`);
    invalid++;
    continue;
  }
  try {
    const Model = models[key]();
    new Model(doc).validate();
    console.log(`valid ${key} ${name}`);
  } catch (e) {
    console.log(`invalid ${key} ${name}: ${e.message}`);
    invalid++;
  }
}
process.exit(invalid ? 1 : 0);
