import { Type } from '@sinclair/typebox'
import * as Compute from '../../core/Compute.js'
import { define } from './shared.js'

/**
 * The operator's compute catalog (COMPUTE_MODELS) with the compute upstream, which compute-futures jobs run on; none
 * while no catalog is set.
 */
export const compute = define({
  port: 'compute',
  description: 'a compute model catalog (COMPUTE_MODELS)',
  env: Type.Object({ COMPUTE_MODELS: Compute.modelsVariable }),
  build: ({ env, ports }) =>
    env.COMPUTE_MODELS ? { models: Compute.fromJson(env.COMPUTE_MODELS), direct: ports.computeUpstream } : undefined,
})
