import Router, { type RouterMiddleware } from '@koa/router';
import { failureCode, routesOf, type Surface } from '../../shared/routes.ts';

/** The middleware answering one table route (checks first, the handler last), keyed by its operation id. */
export type RouteHandlers = Record<string, RouterMiddleware | readonly RouterMiddleware[]>;

/** The router's syntax for an OpenAPI path template: `/invoice/{id}` becomes `/invoice/:id`. */
export const koaPath = (template: string): string => template.replace(/\{(\w+)\}/g, ':$1');

/** Throws unless every route of the surface has a handler and every handler a route of the surface. */
export function checkHandlers(surface: Surface, operationIds: readonly string[]): void {
  const routeIds = routesOf(surface).map((route) => route.operationId);
  const missing = routeIds.filter((id) => !operationIds.includes(id));
  const unknown = operationIds.filter((id) => !routeIds.includes(id));
  if (missing.length || unknown.length) {
    const problems = [missing.length ? `no handler for ${missing.join(', ')}` : '', unknown.length ? `no ${surface} route for ${unknown.join(', ')}` : ''];
    throw new Error(`the ${surface} route table and its handlers differ: ${problems.filter(Boolean).join('; ')}`);
  }
}

/**
 * A router serving every route of the surface's table with its handler; throws at start when the two
 * differ. Each route first notes on `ctx.state.failureCode` what an unexpected failure in it answers.
 */
export function tableRouter(surface: Surface, handlers: RouteHandlers): Router {
  checkHandlers(surface, Object.keys(handlers));
  const router = new Router();
  for (const route of routesOf(surface)) {
    const code = failureCode(route);
    const noteFailureCode: RouterMiddleware = (ctx, next) => {
      ctx.state.failureCode = code;
      return next();
    };
    router[route.method](koaPath(route.path), noteFailureCode, ...[handlers[route.operationId]].flat());
  }
  return router;
}
