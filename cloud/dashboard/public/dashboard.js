// Dashboard: the copy buttons beside a value shown once (an API key, a secret, a checkout link).
// Loaded as a file, and only by the pages that show such a value: the CSP allows no inline code.
'use strict';
document.querySelectorAll('[data-copy]').forEach(function (button) {
  var source = document.getElementById(button.dataset.copy);
  button.hidden = false;
  button.addEventListener('click', function () {
    var say = function (text) {
      button.textContent = text;
      setTimeout(function () { button.textContent = 'Copy'; }, 2000);
    };
    // Without clipboard access the value is selected instead, ready for Ctrl+C.
    var select = function () {
      window.getSelection().selectAllChildren(source);
      say('Selected');
    };
    if (!navigator.clipboard) return select();
    navigator.clipboard.writeText(source.textContent.trim()).then(function () { say('Copied'); }, select);
  });
});
