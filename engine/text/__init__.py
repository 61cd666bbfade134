"""Text tools every feature package shares: words, stems, stopwords, sentences, markers.

One place for each, so that retrieval, reranking, grounding and the offline model agree on
which words are the same and where a sentence ends. This package sits below every other one:
it imports nothing of the engine (an import-linter contract holds it there).
"""
