// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title PriceFeed: a devnet price feed with Chainlink's AggregatorV3Interface and an owner-settable answer.
/// @notice Every `setAnswer` starts a new round (roundId + 1) updated at the block's time; 8 decimals, as the USD
///         feeds on Base. Old rounds stay readable through `getRoundData`.
contract PriceFeed {
    struct Round {
        int256 answer;
        uint256 startedAt;
        uint256 updatedAt;
    }

    uint8 public constant decimals = 8;
    uint256 public constant version = 4;

    address public immutable owner;
    string public description;
    uint80 public latestRound;
    mapping(uint80 => Round) private rounds;

    event AnswerUpdated(int256 indexed current, uint256 indexed roundId, uint256 updatedAt);

    error NotOwner();
    error NoData();

    constructor(string memory description_, int256 answer) {
        owner = msg.sender;
        description = description_;
        _push(answer, block.timestamp);
    }

    /// @notice Starts a new round with `answer`, updated now.
    function setAnswer(int256 answer) external {
        if (msg.sender != owner) revert NotOwner();
        _push(answer, block.timestamp);
    }

    /// @notice Starts a new round with `answer` as if updated at `updatedAt` (tests: a stale round).
    function setAnswerAt(int256 answer, uint256 updatedAt) external {
        if (msg.sender != owner) revert NotOwner();
        _push(answer, updatedAt);
    }

    function latestRoundData()
        external
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        return getRoundData(latestRound);
    }

    function getRoundData(uint80 roundId_)
        public
        view
        returns (uint80 roundId, int256 answer, uint256 startedAt, uint256 updatedAt, uint80 answeredInRound)
    {
        Round memory round = rounds[roundId_];
        if (round.updatedAt == 0) revert NoData();
        return (roundId_, round.answer, round.startedAt, round.updatedAt, roundId_);
    }

    function _push(int256 answer, uint256 updatedAt) private {
        uint80 roundId = latestRound + 1;
        latestRound = roundId;
        rounds[roundId] = Round(answer, updatedAt, updatedAt);
        emit AnswerUpdated(answer, roundId, updatedAt);
    }
}
