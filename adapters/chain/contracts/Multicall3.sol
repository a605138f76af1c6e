// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Multicall3
/// @notice Batches calls into one: the ABI subset of Multicall3 (mds1/multicall) that viem, @x402/evm and the local
///         facilitator call, written for the devnet.
/// @dev Stateless and constructor-free, so its runtime code is placed in the devnet's genesis state at the canonical
///      address 0xcA11bde05977b3631167028862bE2a173976CA11, where clients look for it on every chain.
///      Function signatures and revert strings match Multicall3, so results decode alike on the devnet and on Base.
contract Multicall3 {
    /// @notice One call of `tryAggregate`.
    struct Call {
        address target;
        bytes callData;
    }

    /// @notice One call of `aggregate3`; a failing call reverts the batch unless `allowFailure`.
    struct Call3 {
        address target;
        bool allowFailure;
        bytes callData;
    }

    /// @notice Outcome of one call: whether it succeeded, and its return data or revert data.
    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Runs `calls` in order; reverts with "Multicall3: call failed" when a call without `allowFailure` fails.
    function aggregate3(Call3[] calldata calls) public payable returns (Result[] memory returnData) {
        uint256 length = calls.length;
        returnData = new Result[](length);
        for (uint256 i = 0; i < length; i++) {
            Call3 calldata call = calls[i];
            (bool success, bytes memory data) = call.target.call(call.callData);
            require(success || call.allowFailure, "Multicall3: call failed");
            returnData[i] = Result(success, data);
        }
    }

    /// @notice Runs `calls` in order; reverts with "Multicall3: call failed" on a failure only if `requireSuccess`.
    function tryAggregate(bool requireSuccess, Call[] calldata calls) public payable returns (Result[] memory returnData) {
        uint256 length = calls.length;
        returnData = new Result[](length);
        for (uint256 i = 0; i < length; i++) {
            (bool success, bytes memory data) = calls[i].target.call(calls[i].callData);
            require(success || !requireSuccess, "Multicall3: call failed");
            returnData[i] = Result(success, data);
        }
    }

    /// @notice Number of the block the call runs in.
    function getBlockNumber() public view returns (uint256 blockNumber) {
        blockNumber = block.number;
    }

    /// @notice Timestamp, in Unix seconds, of the block the call runs in.
    function getCurrentBlockTimestamp() public view returns (uint256 timestamp) {
        timestamp = block.timestamp;
    }

    /// @notice Native balance of `addr`, in wei.
    function getEthBalance(address addr) public view returns (uint256 balance) {
        balance = addr.balance;
    }
}
