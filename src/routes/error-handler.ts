/**
 * @module The server's error exits. Every failure, ours or the framework's,
 * leaves as a SPEC error body: thrown errors (`onError`), schema-route
 * validation (`onValidationError`), schema-route handler errors
 * (`specErrors`) and error answers a framework route builds itself (`envelope`). Which status and code a failure gets is decided in
 * `src/contract/errors.ts`; this module only answers with it.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { ValidationErrorHook } from '@mastra/core/server';
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { ApiError, describeFailure, errorBody, frameworkError, fromZodError, isErrorBody, toApiError } from '../contract/errors.ts';
import { currentTraceId } from '../observability/request-trace.ts';
import { replaceJsonBody } from './response-body.ts';
import './context.ts';

export interface ErrorHandlerOptions {
  /** Adds `stack` to error bodies. */
  isDevelopment: boolean;
}

const SUBJECTS = { body: 'request body', query: 'query parameters', path: 'path parameters' } as const;

/**
 * A failure the server answers with a 5xx gets one error line, and one the model server caused (its rate limit,
 * passed on as a 429) a warning: what `describeFailure` allows, with the request's trace id. A client's own
 * mistakes (the other 4xx) have their access line.
 */
export function logFailure(c: Context, apiError: ApiError) {
  // A custom route (`/stt`) is served in a context of Mastra's own, without ours: its trace id is the current request's.
  const failure = { traceId: c.get('traceId') ?? currentTraceId(), ...describeFailure(apiError) };
  const logger = c.get('mastra').getLogger();
  if (apiError.status >= 500) logger.error('request failed', failure);
  else if (failure.upstreamStatus !== undefined) logger.warn('request failed', failure);
}

export function createErrorHandlers(options: ErrorHandlerOptions) {
  const jsonResponse = (apiError: ApiError) =>
    Response.json(errorBody(apiError, options), { status: apiError.status, headers: apiError.headers });

  const onError = (error: Error, c: Context): Response => {
    const apiError = toApiError(error, c.req.path);
    logFailure(c, apiError);
    // Through the context, so the headers set before the failure (the trace id) stay on the answer.
    return c.json(errorBody(apiError, options), apiError.status as 400, apiError.headers);
  };

  const onValidationError: ValidationErrorHook = (error, context) => {
    const apiError = fromZodError(error, SUBJECTS[context]);
    return { status: apiError.status, body: errorBody(apiError, options) };
  };

  /**
   * Makes every handler error of a schema route SPEC's. Mastra's route adapter answers a thrown HTTPException with
   * its own response, which suits a client's mistake (no error line); a server failure goes on to `onError`
   * (the adapter is patched to hand it over), which answers and logs it as every other route's.
   */
  function specErrors<R extends { handler(params: any): Promise<unknown> }>(route: R): R {
    const handler = route.handler;
    return {
      ...route,
      async handler(params: unknown) {
        try {
          return await handler(params);
        } catch (error) {
          const apiError = toApiError(error);
          if (apiError.status >= 500) throw apiError;
          throw new MastraHTTPException(apiError.status as 400, { res: jsonResponse(apiError), cause: error });
        }
      },
    };
  }

  /**
   * Mastra's routes answer some failures themselves (`c.json({error}, 400)`,
   * a 413 from their body limit, Hono's plain-text 404), bypassing `onError`.
   * Such an answer is replaced by a SPEC body built from its status alone.
   */
  const envelope: MiddlewareHandler = async (c, next) => {
    await next();
    if (c.res.status < 400 || isErrorBody(await c.res.clone().json().catch(() => undefined))) return;
    const apiError = frameworkError(c.res.status, c.req.path);
    replaceJsonBody(c, apiError.status, errorBody(apiError, options));
  };

  return { onError, onValidationError, specErrors, envelope };
}
