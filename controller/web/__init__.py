"""The companion web page: the Starlette app (:mod:`controller.web.app`), the JSON it sends
(:mod:`controller.web.state`), the simulator's human actions (:mod:`controller.web.simulator`)
and the static page in ``static/`` (no build step, no CDN)."""
