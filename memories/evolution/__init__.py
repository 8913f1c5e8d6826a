"""What a new memory is to the memories already there: the relation judge."""
