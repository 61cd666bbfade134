"""Chat models per graph role (`factory.make_chat_model`); imports nothing heavy itself."""
