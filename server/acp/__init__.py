"""The Agent Client Protocol front (§13): ``harness acp`` serves it on stdio over the same
conversations (``server.conversation``) the other fronts use."""
