// The invoice view of MCP Apps hosts (served by invoice-app.ts, after the extension's App client in
// the same module script). Draws the invoice from the tool result the host passes on, then follows
// it through the host bridge: wait_for_payment (which returns when the invoice settles, the server
// hearing the change on its status feed), then get_invoice_status, until Paid, Expired or Failed.
(function (App) {
  'use strict';
  var META = 'service/checkout';
  var WAIT_S = 45;
  var titles = {
    pending: 'Waiting for payment',
    seen: 'Payment received: confirming. Do not pay again.',
    partial: 'Partly paid: send the rest to the same address',
    confirmed: 'Paid',
    expired: 'Expired: do not pay; ask for a new invoice',
    failed: 'Failed: do not pay',
  };
  var finalStates = ['confirmed', 'expired', 'failed'];
  var root = document.querySelector('main');
  var byId = function (id) { return document.getElementById(id); };
  var invoiceId = null;
  var following = false;
  var app = new App({ name: 'service-invoice-view', version: '1.0.0' });

  function imageOf(result) {
    var blocks = (result && result.content) || [];
    for (var i = 0; i < blocks.length; i++) if (blocks[i].type === 'image' && blocks[i].mimeType === 'image/png') return blocks[i].data;
    return null;
  }

  function render(result) {
    var extras = (result && result._meta && result._meta[META]) || {};
    var view = extras.view;
    var invoice = view || (result && result.structuredContent && result.structuredContent.invoice);
    if (!invoice) return;
    invoiceId = invoice.invoice_id;
    var state = view && view.payment_seen && invoice.status === 'pending' ? 'seen' : invoice.status;
    // The server states the amount as the invoice's chain does: this script knows no chain.
    var amount = extras.amount;
    root.dataset.state = state;
    if (view) byId('shop').textContent = view.shop_name;
    byId('amount').textContent = 'Pay ' + amount + ' ' + invoice.asset;
    byId('status').textContent = titles[state] || state;
    byId('exact').textContent = state === 'partial' && view ? view.amount_due : amount;
    byId('address').textContent = invoice.receive_address;
    byId('expiry').textContent = 'Expires ' + new Date(invoice.expires_at).toLocaleString();
    var png = extras.qr_png || imageOf(result);
    if (png) {
      byId('qr').src = 'data:image/png;base64,' + png;
      byId('qr').hidden = false;
    }
    byId('pay').hidden = !(state === 'pending' || state === 'partial');
  }

  function settled() {
    return finalStates.indexOf(root.dataset.state) >= 0;
  }

  function follow() {
    if (following || !invoiceId || settled()) return;
    following = true;
    var args = { invoice_id: invoiceId };
    var step = function () {
      return app
        .callServerTool({ name: 'wait_for_payment', arguments: { invoice_id: invoiceId, timeout_s: WAIT_S } }, { timeout: (WAIT_S + 30) * 1000 })
        .then(function () { return app.callServerTool({ name: 'get_invoice_status', arguments: args }); })
        .then(function (result) {
          if (result.isError) throw new Error('status unreadable');
          render(result);
          return settled() ? null : step();
        });
    };
    step()
      .catch(function () { byId('note').textContent = 'Live updates stopped: ask for the invoice status again.'; })
      .then(function () { following = false; });
  }

  document.querySelectorAll('[data-copy]').forEach(function (button) {
    button.addEventListener('click', function () {
      var source = byId(button.dataset.copy);
      var text = source.textContent.trim();
      var selectIt = function () {
        var range = document.createRange();
        range.selectNodeContents(source);
        window.getSelection().removeAllRanges();
        window.getSelection().addRange(range);
        byId('note').textContent = 'Selected: copy it by hand.';
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { byId('note').textContent = 'Copied: ' + text; }, selectIt);
      } else {
        selectIt();
      }
    });
  });

  app.ontoolresult = function (result) {
    render(result);
    follow();
  };
  app.connect();
})(serviceExtApps.App);
