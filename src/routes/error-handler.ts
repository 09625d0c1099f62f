/**
 * @module The server's error exits. Every failure, ours or the framework's,
 * leaves as a SPEC error body: thrown errors (`onError`), schema-route
 * validation (`onValidationError`) and schema-route handler errors
 * (`specErrors`). Which status and code a failure gets is decided in
 * `src/contract/errors.ts`; this module only answers with it.
 */
import type { Context } from 'hono';
import type { ValidationErrorHook } from '@mastra/core/server';
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { ApiError, errorBody, errorHeaders, fromZodError, toApiError } from '../contract/errors.ts';
import './context.ts';

export interface ErrorHandlerOptions {
  /** Adds `stack` to error bodies. */
  isDevelopment: boolean;
}

const SUBJECTS = { body: 'request body', query: 'query parameters', path: 'path parameters' } as const;

export function createErrorHandlers(options: ErrorHandlerOptions) {
  const jsonResponse = (apiError: ApiError) =>
    Response.json(errorBody(apiError, options), { status: apiError.status, headers: errorHeaders(apiError) });

  const onError = (error: Error, c: Context): Response => {
    const apiError = toApiError(error);
    if (apiError.status >= 500) {
      c.get('mastra').getLogger().error('request failed', { traceId: c.get('traceId'), code: apiError.code, error });
    }
    return jsonResponse(apiError);
  };

  const onValidationError: ValidationErrorHook = (error, context) => {
    const apiError = fromZodError(error, SUBJECTS[context]);
    return { status: apiError.status, body: errorBody(apiError, options) };
  };

  /** Schema routes answer a thrown HTTPException with its own response: this makes every handler error SPEC's. */
  function specErrors<R extends { handler(params: any): Promise<unknown> }>(route: R): R {
    const handler = route.handler;
    return {
      ...route,
      async handler(params: unknown) {
        try {
          return await handler(params);
        } catch (error) {
          const apiError = toApiError(error);
          throw new MastraHTTPException(apiError.status as 400, { res: jsonResponse(apiError), cause: error });
        }
      },
    };
  }

  return { onError, onValidationError, specErrors };
}
