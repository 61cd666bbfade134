"""What the app writes outside itself for the person: the clipboard and the `.env` file."""
