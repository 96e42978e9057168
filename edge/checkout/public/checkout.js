// Checkout page: keeps the server-rendered page current. Listens to the view's event stream (each
// status change as it happens); when the stream is cut or missing, polls the JSON view every 5 s
// (backing off on errors, pausing while the tab is hidden) until the status is final. Counts down
// to expiry by the server's clock, and adds copy buttons. Loaded as a file: the page's CSP allows no inline code.
'use strict';
// A block rather than a wrapper function: in strict code what is declared in it stays in it (no globals).
{
  const POLL_MS = 5000;
  const MAX_WAIT_MS = 60000;

  // The page marks its states: data-final (stop polling), data-pay (still show where to pay).
  function stateHas(root, s, attribute) {
    const block = root.querySelector('[data-when="' + s + '"]');
    return Boolean(block && block.hasAttribute(attribute));
  }

  // What the page stands at: its status, the expiry, and the server's clock as an offset from this one's.
  function pageOf(root) {
    return {
      root: root,
      state: root.dataset.state,
      expiresAt: Date.parse(root.dataset.expiresAt),
      offset: Date.parse(root.dataset.serverTime) - Date.now(),
    };
  }

  function isFinal(page) {
    return stateHas(page.root, page.state, 'data-final');
  }

  function show(root, s) {
    root.querySelectorAll('[data-when]').forEach(function (block) { block.hidden = block.dataset.when !== s; });
    root.querySelectorAll('[data-while-open]').forEach(function (el) { el.hidden = !stateHas(root, s, 'data-pay'); });
    root.dataset.state = s;
    // The heading and the title say what the page now is: "Paid …" once confirmed.
    const heading = document.getElementById('heading');
    const text = heading && heading.getAttribute('data-heading-' + s);
    if (text) {
      heading.textContent = text;
      document.title = text + ' · ' + root.dataset.shop;
    }
  }

  // A view from the server, polled or streamed: its clock, the expiry, the transaction, the status.
  function apply(page, view) {
    page.offset = Date.parse(view.server_time) - Date.now();
    page.expiresAt = Date.parse(view.expires_at);
    const link = page.root.querySelector('[data-field="tx_url"]');
    if (link && view.tx_hash) {
      link.textContent = view.tx_hash;
      if (view.tx_url) link.href = view.tx_url;
      link.parentElement.hidden = false;
    }
    // The shop's return link comes with the confirmed view only (null before).
    const back = document.getElementById('return-link');
    if (back && view.redirect_url) {
      back.href = view.redirect_url;
      back.parentElement.hidden = false;
    }
    // Same rule as pageState in page.ts.
    const next = view.payment_seen && view.status === 'pending' ? 'seen' : view.status;
    // Part of the amount arrived: the server renders the page again, so the amount and the QR code
    // ask for the rest only (the QR code is drawn on the server).
    if (next === 'partial' && view.amount_due !== page.root.dataset.amountDue) {
      window.location.reload();
      return;
    }
    if (next !== page.state) {
      page.state = next;
      show(page.root, next);
    }
  }

  // m:ss, h:mm:ss, or N d h:mm:ss.
  function format(ms) {
    const total = Math.max(0, Math.ceil(ms / 1000));
    const days = Math.floor(total / 86400);
    const hours = Math.floor((total % 86400) / 3600);
    const minutes = Math.floor((total % 3600) / 60);
    const seconds = String(total % 60).padStart(2, '0');
    const clock = hours || days ? hours + ':' + String(minutes).padStart(2, '0') + ':' + seconds : minutes + ':' + seconds;
    return days ? days + ' d ' + clock : clock;
  }

  // Polls the JSON view: backing off on errors, paused while the tab is hidden, until the status is final.
  function createPoller(page) {
    let failures = 0;
    let timer = null;
    let paused = false;

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
      fetch(page.root.dataset.viewUrl, { cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (res) {
          if (!res.ok) throw new Error('HTTP ' + res.status);
          return res.json();
        })
        .then(function (view) {
          failures = 0;
          apply(page, view);
        })
        .catch(function () {
          failures += 1;
        })
        .then(function () {
          if (!isFinal(page) && timer === null) schedule(Math.min(POLL_MS * Math.pow(2, failures), MAX_WAIT_MS));
        });
    }

    document.addEventListener('visibilitychange', function () {
      if (!document.hidden && paused) {
        paused = false;
        schedule(0);
      }
    });
    return {
      schedule: schedule,
      // No poll is waiting (one may be under way; it plans the next itself).
      idle: function () { return timer === null; },
    };
  }

  function copyBySelection(el) {
    const range = document.createRange();
    range.selectNodeContents(el);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    try {
      return document.execCommand('copy');
    } catch (e) {
      return false;
    }
  }

  function addCopyButtons(root) {
    const note = document.getElementById('copy-note');
    root.querySelectorAll('[data-copy]').forEach(function (button) {
      const source = document.getElementById(button.dataset.copy);
      const label = button.getAttribute('aria-label').replace(/^Copy /, '');
      button.hidden = false;
      button.addEventListener('click', function () {
        const text = source.textContent.trim();
        const done = function (ok) {
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
  }

  // The ways to pay as tabs (On-chain, Lightning), as the ARIA tabs pattern has them: arrow keys,
  // Home and End move between the tabs and show each one's panel; Tab leaves for the panel.
  function setUpTabs(root) {
    const tablist = root.querySelector('[role="tablist"]');
    if (!tablist) return;
    const tabs = Array.prototype.slice.call(tablist.querySelectorAll('[role="tab"]'));
    function select(chosen) {
      tabs.forEach(function (tab) {
        const selected = tab === chosen;
        tab.setAttribute('aria-selected', String(selected));
        tab.tabIndex = selected ? 0 : -1;
        document.getElementById(tab.getAttribute('aria-controls')).hidden = !selected;
      });
    }
    tabs.forEach(function (tab, i) {
      tab.addEventListener('click', function () { select(tab); });
      tab.addEventListener('keydown', function (event) {
        const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[event.key];
        if (to === undefined) return;
        event.preventDefault();
        const next = tabs[(to + tabs.length) % tabs.length];
        select(next);
        next.focus();
      });
    });
    select(tabs.filter(function (tab) { return tab.getAttribute('aria-selected') === 'true'; })[0] || tabs[0]);
    tablist.hidden = false;
  }

  // The expiry in the payer's own time zone (the server wrote it in UTC), and the countdown beside it
  // by the server's clock; at zero `askServer` (a Bitcoin payment seen in time still confirms).
  function startCountdown(page, askServer) {
    const countdown = document.getElementById('countdown');
    const expiresAtText = document.getElementById('expires-at');
    let expiryChecked = false;
    function tick() {
      if (!stateHas(page.root, page.state, 'data-pay') || !countdown) return;
      const left = page.expiresAt - (Date.now() + page.offset);
      countdown.textContent = format(left);
      if (left <= 0 && !expiryChecked) {
        expiryChecked = true;
        askServer();
      }
    }
    if (expiresAtText) {
      expiresAtText.textContent = new Date(page.expiresAt).toLocaleString([], { hour: '2-digit', minute: '2-digit', day: 'numeric', month: 'short', timeZoneName: 'short' });
    }
    if (countdown) countdown.parentElement.hidden = false;
    tick();
    setInterval(tick, 1000);
  }

  // Live: the view's event stream; once it is cut or refused (the server's cap on streams), or the
  // browser has none, the poller. A stream that reached its lifetime says `reconnect`: a new one.
  function listen(page, poller) {
    if (!window.EventSource) return poller.schedule(POLL_MS);
    const stream = new EventSource(page.root.dataset.viewUrl + '/events');
    stream.addEventListener('view', function (event) {
      apply(page, JSON.parse(event.data));
    });
    stream.addEventListener('reconnect', function () {
      stream.close();
      if (!isFinal(page)) listen(page, poller);
    });
    // Also how a final status ends it: the server closes the stream after sending it.
    stream.onerror = function () {
      stream.close();
      if (!isFinal(page) && poller.idle()) poller.schedule(0);
    };
  }

  const root = document.querySelector('[data-view-url]');
  if (root) {
    const page = pageOf(root);
    const poller = createPoller(page);
    addCopyButtons(root);
    setUpTabs(root);
    startCountdown(page, function () { poller.schedule(0); });
    if (!isFinal(page)) listen(page, poller);
  }
}
