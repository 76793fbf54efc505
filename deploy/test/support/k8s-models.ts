/**
 * Offline validation of rendered objects against the Kubernetes OpenAPI schemas that kubernetes-models embeds
 * (package 5.1.0, pinned in deploy/package.json: the schemas of Kubernetes v1.36). kubernetes-models also keeps
 * APIs that newer clusters removed, so the API versions are checked against those a v1.36 cluster serves.
 */
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import type { K8sObject } from './kustomize.js';

interface Validatable {
  validate(): void;
}

const MODELS: Record<string, new (data: never) => Validatable> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'networking.k8s.io/v1/Ingress': Ingress,
};

/** Custom resources of operators the overlays may use; kubernetes-models has no schema for them. */
export const CUSTOM_RESOURCES = new Set(['keda.sh/v1alpha1/ScaledObject', 'monitoring.coreos.com/v1/PodMonitor']);

/** Throws with the schema's message when the object is not valid; answers false for a known custom resource. */
export function validateObject(obj: K8sObject): boolean {
  const type = `${obj.apiVersion}/${obj.kind}`;
  if (CUSTOM_RESOURCES.has(type)) return false;
  const Model = MODELS[type];
  if (!Model) throw new Error(`${type} (${obj.metadata.name}) is not a type these checks know a v1.36 cluster serves`);
  try {
    new Model(obj as never).validate();
  } catch (err) {
    throw new Error(`${type} ${obj.metadata.name}: ${(err as Error).message}`, { cause: err });
  }
  return true;
}
