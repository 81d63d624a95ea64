import * as pulumi from "@pulumi/pulumi";

/**
 * Pulumi wraps every property of a resource it registers in an Output, and gives each a
 * `new Error().stack`, kept only to print when it reports a promise leak at exit. Pulumi's
 * program runner installs source-map-support, which maps every frame of every such trace: about
 * half a millisecond each. A VM declares its ten outputs and passes its inputs, about twenty
 * properties, so building one cost 14 ms where a one-property dynamic resource costs 3 ms —
 * a second of program time in each `up`, `preview` and `preview --refresh` of 100 VMs.
 *
 * A resource is therefore built with the stack trace limit at zero. Nothing Pulumi uses is lost:
 * the resource's source position comes from Pulumi's `callsites`, which lifts the limit for its
 * own trace; and with PULUMI_DEBUG_PROMISE_LEAKS set (when leak traces are wanted) the limit is
 * left alone.
 */
export function withoutLeakTraces(): () => void {
  if (process.env["PULUMI_DEBUG_PROMISE_LEAKS"]) return () => undefined;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  return () => {
    Error.stackTraceLimit = limit;
  };
}

/** A dynamic resource built with stack traces off (see above): the base of this package's resources. */
export class UntracedDynamicResource extends pulumi.dynamic.Resource {
  constructor(
    provider: pulumi.dynamic.ResourceProvider,
    name: string,
    props: pulumi.Inputs,
    opts: pulumi.CustomResourceOptions | undefined,
    module: string,
    type: string,
  ) {
    const restoreTraces = withoutLeakTraces();
    try {
      super(provider, name, props, opts, module, type);
    } finally {
      restoreTraces();
    }
  }
}
