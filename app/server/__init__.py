"""The loopback, read-only graph server: the HTTP loop and its connection limits
(``http_server``, ``connections``), the routes and their OpenAPI description, the one web page,
and ``control`` (the server on a thread of the window). It reads only through the core's
``MemoryService``; it never imports ``cli``."""
