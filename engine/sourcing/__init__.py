"""Source numbering and attribution for answers written from search results (quick and deep)."""
