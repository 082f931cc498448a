/**
 * How the kernel reads what a plugin returns: every answer is parsed with the zod schema of
 * its kind's contract before anything acts on it or logs it. A plugin runs in the sandbox, so
 * its answer is untrusted input; a bad one is RTC_ERR_EXECUTOR_RESULT naming the plugin, the
 * export and the field.
 */
import type { z } from 'zod';
import { kernelError } from '../errors.ts';
import { describeZodError } from '../manifest/load.ts';

/** Parses a plugin's answer; a bad one is RTC_ERR_EXECUTOR_RESULT naming the plugin and field. */
export function checkPluginAnswer<S extends z.ZodType>(schema: S, value: unknown, plugin: string, exportName: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { field, reason } = describeZodError(result.error);
  throw kernelError('RTC_ERR_EXECUTOR_RESULT', `plugin ${plugin}: ${exportName}() returned a bad value at ${field}: ${reason}`, { details: { plugin, field, reason } });
}
