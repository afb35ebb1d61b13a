"""One screen per view (Textual modes): tokenize, stream, vocabulary, metadata."""
