import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import Koa from 'koa';
import type { RouterMiddleware } from '@koa/router';
import { buildOpenApiDocument } from '../../shared/openapi.ts';
import { errorCatalogue } from '../../shared/errors.ts';
import { failureCode, routeTable, routesOf, type Surface } from '../../shared/routes.ts';
import { koaPath, tableRouter, type RouteHandlers } from '../../edge/http/route-table.ts';

const answer: RouterMiddleware = (ctx) => {
  ctx.body = 'ok';
};
const handlersFor = (surface: Surface): RouteHandlers => Object.fromEntries(routesOf(surface).map((route) => [route.operationId, answer]));

describe('one route table feeds the routers and the document', () => {
  it('operation ids are unique, and each path and method is one route', () => {
    const ids = routeTable.map((route) => route.operationId);
    assert.equal(new Set(ids).size, ids.length);
    const keys = routeTable.map((route) => `${route.method} ${route.path}`);
    assert.equal(new Set(keys).size, keys.length);
  });

  it('the document has exactly the listed routes, with their operation ids; an unlisted route says why', () => {
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { operationId: string }>> };
    const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations).map(([method, operation]) => `${method} ${path} ${operation.operationId}`),
    );
    const listed = routeTable.filter((route) => !route.unlisted).map((route) => `${route.method} ${route.path} ${route.operationId}`);
    assert.deepEqual(documented, listed);
    for (const route of routeTable.filter((r) => r.unlisted)) assert.ok(route.unlisted!.length > 20, route.operationId);
    assert.deepEqual(
      routeTable.filter((route) => route.unlisted).map((route) => route.operationId),
      ['cloudStripeWebhook'],
    );
  });

  it('an unexpected failure answers the one 500 code its route documents, else internal_error', () => {
    for (const route of routeTable) assert.ok(route.errors.filter((code) => errorCatalogue[code].status === 500).length <= 1, route.operationId);
    const byId = (id: string) => routeTable.find((route) => route.operationId === id)!;
    assert.equal(failureCode(byId('createInvoice')), 'create_failed');
    assert.equal(failureCode(byId('cloudCreateInvoice')), 'create_failed');
    assert.equal(failureCode(byId('getInvoice')), 'lookup_failed');
    assert.equal(failureCode(byId('getCheckoutView')), 'lookup_failed');
    assert.equal(failureCode(byId('cloudGetInvoice')), 'lookup_failed');
    assert.equal(failureCode(byId('cloudCheckoutView')), 'internal_error');
    assert.equal(failureCode(byId('cloudMe')), 'internal_error');
  });

  it('turns OpenAPI path templates into the router syntax', () => {
    assert.equal(koaPath('/api/v1/invoice/{id}'), '/api/v1/invoice/:id');
    assert.equal(koaPath('/a/{x}/b/{y_2}'), '/a/:x/b/:y_2');
    assert.equal(koaPath('/health'), '/health');
  });

  for (const surface of ['listener', 'cloud'] as const) {
    it(`${surface}: mounts every table route of its surface, by method and path`, () => {
      const router = tableRouter(surface, handlersFor(surface));
      const mounted = router.stack.map((layer) => `${layer.methods.filter((m) => m !== 'HEAD').join()} ${layer.path}`).sort();
      const expected = routesOf(surface).map((route) => `${route.method.toUpperCase()} ${koaPath(route.path)}`).sort();
      assert.deepEqual(mounted, expected);
      assert.ok(routesOf(surface).length > 5);
    });

    it(`${surface}: refuses to start when a table route has no handler or a handler has no table route`, () => {
      const [first] = routesOf(surface);
      const { [first.operationId]: _dropped, ...missing } = handlersFor(surface);
      assert.throws(() => tableRouter(surface, missing), new RegExp(`no handler for ${first.operationId}$`));
      assert.throws(() => tableRouter(surface, { ...handlersFor(surface), deleteEverything: answer }), /no \w+ route for deleteEverything$/);
      const other = surface === 'listener' ? 'cloud' : 'listener';
      const foreign = routesOf(other).find((route) => !route.surfaces.includes(surface))!;
      assert.throws(() => tableRouter(surface, { ...handlersFor(surface), [foreign.operationId]: answer }), new RegExp(`no ${surface} route for ${foreign.operationId}`));
    });
  }

  it('a mounted route answers on its path with its method only', async () => {
    const app = new Koa();
    app.use(tableRouter('listener', handlersFor('listener')).routes());
    const server = createServer(app.callback()).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      assert.equal((await fetch(`${base}/invoice/inv_1`)).status, 200);
      assert.equal((await fetch(`${base}/invoice`, { method: 'POST' })).status, 200);
      assert.equal((await fetch(`${base}/invoice`)).status, 404, 'GET /invoice is no route');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
