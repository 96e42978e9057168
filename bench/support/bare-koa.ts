/** Baseline server: bare Koa answering POST /invoice with a fixed invoice JSON, no work. */
import Koa from 'koa';

const body = JSON.parse(process.argv[2] ?? '{}');
const app = new Koa();
app.use((ctx) => {
  ctx.status = 201;
  ctx.body = body;
});
app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
