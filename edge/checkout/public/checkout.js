// Checkout page: keeps the server-rendered page current. Listens to the view's event stream (each
// status change as it happens); when the stream is cut or missing, polls the JSON view every 5 s
// (backing off on errors, pausing while the tab is hidden) until the status is final. Counts down
// to expiry by the server's clock, and adds copy buttons. Loaded as a file: the page's CSP allows no inline code.
'use strict';
(function () {
  var root = document.querySelector('[data-view-url]');
  if (!root) return;
  var POLL_MS = 5000;
  var MAX_WAIT_MS = 60000;
  var state = root.dataset.state;
  var expiresAt = Date.parse(root.dataset.expiresAt);
  var offset = Date.parse(root.dataset.serverTime) - Date.now();
  var countdown = document.getElementById('countdown');
  var expiresAtText = document.getElementById('expires-at');
  var failures = 0;
  var timer = null;
  var paused = false;
  var expiryChecked = false;

  // The page marks its states: data-final (stop polling), data-pay (still show where to pay).
  function stateHas(s, attribute) {
    var block = root.querySelector('[data-when="' + s + '"]');
    return Boolean(block && block.hasAttribute(attribute));
  }
  function isFinal(s) {
    return stateHas(s, 'data-final');
  }

  function show(s) {
    root.querySelectorAll('[data-when]').forEach(function (block) { block.hidden = block.dataset.when !== s; });
    root.querySelectorAll('[data-while-open]').forEach(function (el) { el.hidden = !stateHas(s, 'data-pay'); });
    root.dataset.state = s;
    // The heading and the title say what the page now is: "Paid …" once confirmed.
    var heading = document.getElementById('heading');
    var text = heading && heading.getAttribute('data-heading-' + s);
    if (text) {
      heading.textContent = text;
      document.title = text + ' · ' + root.dataset.shop;
    }
  }

  function apply(view) {
    offset = Date.parse(view.server_time) - Date.now();
    expiresAt = Date.parse(view.expires_at);
    var link = root.querySelector('[data-field="tx_url"]');
    if (link && view.tx_hash) {
      link.textContent = view.tx_hash;
      if (view.tx_url) link.href = view.tx_url;
    }
    // Same rule as pageState in page.ts.
    var next = view.payment_seen && view.status === 'pending' ? 'seen' : view.status;
    // Part of the amount arrived: the server renders the page again, so the amount and the QR code
    // ask for the rest only (the QR code is drawn on the server).
    if (next === 'partial' && view.amount_due !== root.dataset.amountDue) {
      window.location.reload();
      return;
    }
    if (next !== state) {
      state = next;
      show(state);
    }
  }

  // m:ss, h:mm:ss, or N d h:mm:ss.
  function format(ms) {
    var total = Math.max(0, Math.ceil(ms / 1000));
    var days = Math.floor(total / 86400);
    var hours = Math.floor((total % 86400) / 3600);
    var minutes = Math.floor((total % 3600) / 60);
    var seconds = String(total % 60).padStart(2, '0');
    var clock = hours || days ? hours + ':' + String(minutes).padStart(2, '0') + ':' + seconds : minutes + ':' + seconds;
    return days ? days + ' d ' + clock : clock;
  }

  function tick() {
    if (!stateHas(state, 'data-pay') || !countdown) return;
    var left = expiresAt - (Date.now() + offset);
    countdown.textContent = format(left);
    // At zero the server decides (a Bitcoin payment seen in time still confirms): ask it once now.
    if (left <= 0 && !expiryChecked) {
      expiryChecked = true;
      schedule(0);
    }
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(poll, ms);
  }

  function poll() {
    timer = null;
    if (document.hidden) {
      paused = true;
      return;
    }
    fetch(root.dataset.viewUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) {
        if (!res.ok) throw new Error('HTTP ' + res.status);
        return res.json();
      })
      .then(function (view) {
        failures = 0;
        apply(view);
      })
      .catch(function () {
        failures += 1;
      })
      .then(function () {
        if (!isFinal(state) && timer === null) schedule(Math.min(POLL_MS * Math.pow(2, failures), MAX_WAIT_MS));
      });
  }

  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && paused) {
      paused = false;
      schedule(0);
    }
  });

  var note = document.getElementById('copy-note');
  function copyBySelection(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand('copy');
    } catch (e) {
      return false;
    }
  }
  root.querySelectorAll('[data-copy]').forEach(function (button) {
    var source = document.getElementById(button.dataset.copy);
    var label = button.getAttribute('aria-label').replace(/^Copy /, '');
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = source.textContent.trim();
      var done = function (ok) {
        note.textContent = ok ? 'Copied the ' + label + ': ' + text : 'Could not copy; the ' + label + ' is selected, copy it by hand.';
        button.textContent = ok ? 'Copied' : 'Copy';
        setTimeout(function () { button.textContent = 'Copy'; }, 2000);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(function () { done(true); }, function () { done(copyBySelection(source)); });
      } else {
        done(copyBySelection(source));
      }
    });
  });

  // The clock time in the payer's own time zone (the server wrote it in UTC), and the countdown beside it.
  if (expiresAtText) {
    expiresAtText.textContent = new Date(expiresAt).toLocaleString([], { hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short', timeZoneName: 'short' });
  }
  if (countdown) countdown.parentElement.hidden = false;
  tick();
  setInterval(tick, 1000);
  // Live: the view's event stream; once it is cut or refused (the server's cap on streams), or the
  // browser has none, the polling above. A stream that reached its lifetime says `reconnect`: a new one.
  function listen() {
    if (!window.EventSource) return schedule(POLL_MS);
    var stream = new EventSource(root.dataset.viewUrl + '/events');
    stream.addEventListener('view', function (event) {
      apply(JSON.parse(event.data));
    });
    stream.addEventListener('reconnect', function () {
      stream.close();
      if (!isFinal(state)) listen();
    });
    // Also how a final status ends it: the server closes the stream after sending it.
    stream.onerror = function () {
      stream.close();
      if (!isFinal(state) && timer === null) schedule(0);
    };
  }
  if (!isFinal(state)) listen();
})();
