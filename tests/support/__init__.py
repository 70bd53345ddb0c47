"""Test support: real implementations of interfaces for tests (fake servers), never mocks."""
