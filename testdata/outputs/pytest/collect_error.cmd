pytest
