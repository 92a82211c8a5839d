"""Feature extraction: word-presence tags for documents, maxent context predicates for tokens."""

from fsengine.data.features.tags import word_presence_tags as word_presence_tags
