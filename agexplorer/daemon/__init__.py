"""The background worker the headless commands share: one warm TensorFlow worker per
interpreter, agexplorer build and TensorFlow-relevant environment, reached over a Unix socket
in a private folder (never TCP), stopping itself after an idle time. ``place`` names the
folder and the socket, ``server`` is the background process (it imports no TensorFlow: it
relays each request to a worker of its own), ``client`` is the commands' side."""
