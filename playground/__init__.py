"""The playground's page: the drawing pad, the views it shows, and how it is served."""
