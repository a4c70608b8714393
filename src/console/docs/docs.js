'use strict'

// Swagger UI on this LRS's own description (/openapi.json, beside /docs/).
// No online validator badge: the page makes no request off this origin.
// No deep links: they nest a link inside each operation's toggle button,
// which screen readers cannot use (axe: nested-interactive).
window.ui = window.SwaggerUIBundle({
  url: new URL('../openapi.json', window.location.href).pathname,
  dom_id: '#swagger-ui',
  deepLinking: false,
  validatorUrl: null,
  presets: [window.SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
  onComplete () {
    // the servers' select has no label of its own
    const servers = document.getElementById('servers')
    if (servers) servers.setAttribute('aria-label', 'Server')
  }
})
