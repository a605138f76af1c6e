// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice The views of an ERC-8004 Identity Registry this registry asks who owns an agent.
interface IAgentIdentity {
    function ownerOf(uint256 agentId) external view returns (address);
    function isApprovedForAll(address owner, address operator) external view returns (bool);
    function getApproved(uint256 agentId) external view returns (address);
}

/// @title AgentReputationRegistry: the devnet's ERC-8004 Reputation Registry, written for this gateway.
/// @notice Clients give feedback to agents of one Identity Registry: a signed fixed-point value (`value` with
///         `valueDecimals`, at most 18) and two tags. An agent's owner and its operators cannot rate it. Each
///         client's feedback to an agent is numbered from 1; a client revokes its own. `getSummary` counts the
///         feedback of the clients it is given that is not revoked and matches the tags (an empty tag matches all)
///         and answers their average in 18 decimals (reverting when it does not fit an int128).
contract AgentReputationRegistry {
    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    uint8 public constant summaryDecimals = 18;

    address private immutable identityRegistry;
    mapping(uint256 => mapping(address => Feedback[])) private feedback;
    mapping(uint256 => address[]) private clients;
    mapping(uint256 => mapping(address => bool)) private isClient;

    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);

    error NonexistentAgent(uint256 agentId);
    error SelfFeedback(uint256 agentId, address sender);
    error TooManyDecimals(uint8 valueDecimals);
    error NoSuchFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    error AlreadyRevoked(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    error NoClients();
    error SummaryOverflow();

    constructor(address identityRegistry_) {
        identityRegistry = identityRegistry_;
    }

    /// @notice The Identity Registry whose agents this registry rates.
    function getIdentityRegistry() external view returns (address) {
        return identityRegistry;
    }

    /// @notice Rates an agent; the sender is the client. The agent's owner, approved address and operators cannot.
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string memory tag1,
        string memory tag2,
        string memory endpoint,
        string memory feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > summaryDecimals) revert TooManyDecimals(valueDecimals);
        requireOutsider(agentId);
        Feedback[] storage given = feedback[agentId][msg.sender];
        given.push(Feedback(value, valueDecimals, false, tag1, tag2));
        if (!isClient[agentId][msg.sender]) {
            isClient[agentId][msg.sender] = true;
            clients[agentId].push(msg.sender);
        }
        emit NewFeedback(
            agentId, msg.sender, uint64(given.length), value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    /// @notice Revokes one of the sender's feedback to an agent; it no longer counts.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        Feedback storage entry = entryOf(agentId, msg.sender, feedbackIndex);
        if (entry.isRevoked) revert AlreadyRevoked(agentId, msg.sender, feedbackIndex);
        entry.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @notice Every client that has rated an agent, in the order of their first feedback.
    function getClients(uint256 agentId) external view returns (address[] memory) {
        return clients[agentId];
    }

    /// @notice The number of the last feedback a client gave an agent; 0 when none.
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return uint64(feedback[agentId][clientAddress].length);
    }

    /// @notice One feedback, by its client and number.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        Feedback storage entry = entryOf(agentId, clientAddress, feedbackIndex);
        return (entry.value, entry.valueDecimals, entry.tag1, entry.tag2, entry.isRevoked);
    }

    /// @notice Count and average (in 18 decimals) of the standing feedback of `clientAddresses` matching the tags.
    function getSummary(uint256 agentId, address[] memory clientAddresses, string memory tag1, string memory tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert NoClients();
        bytes32 tag1Hash = bytes(tag1).length == 0 ? bytes32(0) : keccak256(bytes(tag1));
        bytes32 tag2Hash = bytes(tag2).length == 0 ? bytes32(0) : keccak256(bytes(tag2));
        int256 total;
        for (uint256 i = 0; i < clientAddresses.length; i++) {
            (int256 sum, uint64 counted) = sumOf(feedback[agentId][clientAddresses[i]], tag1Hash, tag2Hash);
            total += sum;
            count += counted;
        }
        int256 average = count == 0 ? int256(0) : total / int256(uint256(count));
        if (average > type(int128).max || average < type(int128).min) revert SummaryOverflow();
        summaryValue = int128(average);
        summaryValueDecimals = summaryDecimals;
    }

    /// @dev Sum (in 18 decimals) and count of the standing feedback in `given` whose tags hash as asked (0: any).
    function sumOf(Feedback[] storage given, bytes32 tag1Hash, bytes32 tag2Hash)
        private
        view
        returns (int256 sum, uint64 count)
    {
        for (uint256 j = 0; j < given.length; j++) {
            Feedback storage entry = given[j];
            if (entry.isRevoked) continue;
            if (tag1Hash != bytes32(0) && keccak256(bytes(entry.tag1)) != tag1Hash) continue;
            if (tag2Hash != bytes32(0) && keccak256(bytes(entry.tag2)) != tag2Hash) continue;
            sum += int256(entry.value) * int256(10 ** (summaryDecimals - entry.valueDecimals));
            count++;
        }
    }

    /// @dev Reverts unless the agent exists and the sender is neither its owner, nor approved for it, nor an operator.
    function requireOutsider(uint256 agentId) private view {
        IAgentIdentity registry = IAgentIdentity(identityRegistry);
        address owner;
        try registry.ownerOf(agentId) returns (address found) {
            owner = found;
        } catch {
            revert NonexistentAgent(agentId);
        }
        if (owner == address(0)) revert NonexistentAgent(agentId);
        if (msg.sender == owner || registry.isApprovedForAll(owner, msg.sender) || registry.getApproved(agentId) == msg.sender) {
            revert SelfFeedback(agentId, msg.sender);
        }
    }

    function entryOf(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        private
        view
        returns (Feedback storage)
    {
        Feedback[] storage given = feedback[agentId][clientAddress];
        if (feedbackIndex == 0 || feedbackIndex > given.length) {
            revert NoSuchFeedback(agentId, clientAddress, feedbackIndex);
        }
        return given[feedbackIndex - 1];
    }
}
