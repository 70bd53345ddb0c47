"""The run room: one run of the agent from its opening to its end — the session that
opens it (``session``, with what a front shares and brings: ``backend``), the loop
(``loop``, ``steps``, ``stops``, ``steering``, ``verify``), what its calls run against
(``toolbox``, ``instructions``), how each request is assembled over ``harness.context``
(``assembly``, ``reread``), the conversation it belongs to (``conversation``,
``plan_goal``) and what it tells its fronts (``events``, ``observers``).

Nothing is re-exported here: import the module that owns a name."""
