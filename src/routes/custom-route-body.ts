/**
 * @module Lets a Mastra custom route (`registerApiRoute`) read a large request body as a stream.
 *
 * Mastra's server keeps a pristine clone of every body request for its custom-route bridge, and the bridge
 * hands the route that clone. A clone is a tee of the body: while the route reads its branch, the
 * original request's branch, which nobody reads, queues every chunk, so a 25 MB upload sat whole in
 * memory. Cancelling the original's branch stops that queue and leaves the clone's branch streaming.
 * Register it as server middleware on the custom route's path only.
 */
import type { MiddlewareHandler } from 'hono';

/** Where Mastra's context middleware keeps the clone (`MASTRA_PRISTINE_REQUEST_KEY` in @mastra/deployer). */
const PRISTINE_REQUEST_KEY = '__mastraPristineRequest';

export const streamCustomRouteBody: MiddlewareHandler = async (c, next) => {
  // Only when the bridge reads the clone: with no clone, the original body is the route's only copy.
  if (c.get(PRISTINE_REQUEST_KEY as never)) {
    // Not awaited: a tee branch's cancel settles only once the other branch is done too.
    c.req.raw.body?.cancel().catch(() => {});
  }
  await next();
};
